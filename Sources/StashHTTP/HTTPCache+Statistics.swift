extension HTTPCache {
    /// What an ``HTTPCache`` has done since it was created.
    ///
    /// ```swift
    /// let stats = cache.statistics
    /// print("hit ratio", stats.hitRatio ?? 0)
    /// ```
    public struct Statistics: Sendable, Hashable, CustomStringConvertible {
        /// Requests answered from the cache without contacting the origin.
        public var hits = 0
        /// Requests that needed the origin and got a new response from it.
        public var misses = 0
        /// Stored responses confirmed by the origin with `304 Not Modified`.
        public var revalidations = 0
        /// Stale responses served because the origin failed or could not be reached.
        public var staleServed = 0
        /// Body bytes served from the cache rather than transferred (hits and revalidations).
        public var bytesSaved = 0

        /// Hits over requests that reached the cache (hits and misses), or `nil` before the
        /// first, as in every Stash cache's statistics.
        public var hitRatio: Double? {
            let reads = hits + misses
            return reads == 0 ? nil : Double(hits) / Double(reads)
        }

        public init() {}

        public var description: String {
            "hits \(hits), misses \(misses), revalidations \(revalidations), stale served \(staleServed), bytes saved \(bytesSaved)"
        }
    }
}

extension HTTPCache.Statistics {
    /// Adds `bytes` to ``bytesSaved``, stopping at `Int.max`: the length comes from a stored
    /// entry, whose body file may claim up to `Int.max` bytes.
    mutating func addBytesSaved(_ bytes: Int) {
        let (sum, overflow) = bytesSaved.addingReportingOverflow(max(0, bytes))
        bytesSaved = overflow ? .max : sum
    }
}
