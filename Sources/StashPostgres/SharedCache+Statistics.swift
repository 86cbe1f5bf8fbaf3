import Metrics
import StashCore

extension SharedCache {
    /// What this instance of a ``SharedCache`` has done since it was created (other instances
    /// on the same table count their own).
    ///
    /// ```swift
    /// let stats = cache.statistics
    /// print("\(stats.hits) hits, \(stats.misses) misses, \(stats.errors) errors")
    /// ```
    ///
    /// The same numbers go to swift-metrics as counters `stash_shared_cache_hits`, `_misses`,
    /// `_writes`, `_dropped_writes`, `_errors`, `_bytes_read`, `_bytes_written` and
    /// `_expired` with a `cache` dimension (``Configuration/metricsName``).
    public struct Statistics: Sendable, Hashable {
        /// Reads that found a live value.
        public var hits = 0
        /// Reads that found nothing (or only an expired value), including reads answered
        /// "miss" because PostgreSQL failed.
        public var misses = 0
        /// Values stored (`set`, each value of `setMany`, `increment`).
        public var writes = 0
        /// Writes and removals dropped because PostgreSQL failed (lenient policy).
        public var droppedWrites = 0
        /// Operations that failed because PostgreSQL was unreachable, slow or refused them.
        public var errors = 0
        /// Value bytes read from hits.
        public var bytesRead = 0
        /// Value bytes written.
        public var bytesWritten = 0
        /// Entries removed by expiry passes of this instance (expired, too old, over a limit).
        public var expired = 0

        /// Hits over reads, or `nil` before the first read.
        public var hitRatio: Double? {
            hits + misses == 0 ? nil : Double(hits) / Double(hits + misses)
        }
    }

    /// This instance's counters, read at one instant.
    ///
    /// ```swift
    /// if let ratio = cache.statistics.hitRatio { print("hit ratio \(ratio)") }
    /// ```
    public var statistics: Statistics { counters.snapshot() }
}

/// The statistics of one ``SharedCache`` and the swift-metrics counters that mirror them.
final class SharedCacheCounters: Sendable {
    private let state = LockedValue(SharedCache.Statistics())
    private let hits, misses, writes, droppedWrites, errors, bytesRead, bytesWritten, expired: Counter

    init(name: String) {
        let dimensions = [("cache", name)]
        func counter(_ label: String) -> Counter { Counter(label: "stash_shared_cache_\(label)", dimensions: dimensions) }
        hits = counter("hits")
        misses = counter("misses")
        writes = counter("writes")
        droppedWrites = counter("dropped_writes")
        errors = counter("errors")
        bytesRead = counter("bytes_read")
        bytesWritten = counter("bytes_written")
        expired = counter("expired")
    }

    func snapshot() -> SharedCache.Statistics { state.withLock { $0 } }

    func recordReads(hits hitCount: Int, misses missCount: Int, bytes: Int) {
        state.withLock { $0.hits += hitCount; $0.misses += missCount; $0.bytesRead += bytes }
        if hitCount > 0 { hits.increment(by: hitCount) }
        if missCount > 0 { misses.increment(by: missCount) }
        if bytes > 0 { bytesRead.increment(by: bytes) }
    }

    func recordWrites(_ count: Int, bytes: Int) {
        state.withLock { $0.writes += count; $0.bytesWritten += bytes }
        writes.increment(by: count)
        if bytes > 0 { bytesWritten.increment(by: bytes) }
    }

    func recordDroppedWrites(_ count: Int) {
        state.withLock { $0.droppedWrites += count }
        droppedWrites.increment(by: count)
    }

    func recordError() {
        state.withLock { $0.errors += 1 }
        errors.increment()
    }

    func recordExpired(_ count: Int) {
        guard count > 0 else { return }
        state.withLock { $0.expired += count }
        expired.increment(by: count)
    }
}
