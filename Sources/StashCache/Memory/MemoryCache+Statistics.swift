import StashCore
extension MemoryCache {
    /// How a ``MemoryCache`` has been doing since it was created or its statistics were reset.
    ///
    /// ```swift
    /// let stats = cache.statistics
    /// print("\(stats.count) entries, hit ratio \(stats.hitRatio ?? 0)")
    /// ```
    public struct Statistics: Sendable, Hashable {
        /// Reads that found a live value.
        public var hits: Int
        /// Reads that found nothing (or only an expired value).
        public var misses: Int
        /// Entries dropped by a limit, expiry, a trim or a purge (not by `removeValue`,
        /// a replacing `set` or `removeAll`).
        public var evictions: Int
        /// Live entries now.
        public var count: Int
        /// Total cost of the live entries now.
        public var totalCost: Int

        /// Hits over reads, or `nil` before the first read.
        public var hitRatio: Double? {
            let reads = hits + misses
            return reads == 0 ? nil : Double(hits) / Double(reads)
        }
    }

    /// The counters and sizes of this cache, read at one instant.
    ///
    /// ```swift
    /// let stats = cache.statistics
    /// print("\(stats.hits) hits, \(stats.misses) misses, \(stats.evictions) evictions")
    /// ```
    public var statistics: Statistics {
        withEvictionReport { storage in
            storage.removeExpiredIfAny()
            var statistics = Statistics(hits: 0, misses: 0, evictions: storage.evictions, count: storage.count, totalCost: storage.totalCost)
            for index in 0..<stripes.count {
                stripes.withStripe(at: index) { stripe in
                    statistics.hits &+= stripe.hits
                    statistics.misses &+= stripe.misses
                }
            }
            return statistics
        }
    }

    /// Sets the hit, miss and eviction counters back to zero.
    ///
    /// ```swift
    /// cache.resetStatistics() // measure one screen's hit ratio
    /// ```
    public func resetStatistics() {
        state.withLock { storage in
            storage.evictions = 0
            for index in 0..<stripes.count {
                stripes.withStripe(at: index) { stripe in
                    stripe.hits = 0
                    stripe.misses = 0
                }
            }
        }
    }
}
