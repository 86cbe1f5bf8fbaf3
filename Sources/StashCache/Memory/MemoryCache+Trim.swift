public import Foundation
import StashCore

extension MemoryCache {
    /// Evicts least recently used entries until at most `count` remain
    /// (reason ``EvictionReason/trimmed``).
    ///
    /// ```swift
    /// cache.trim(toCount: 100)
    /// ```
    public func trim(toCount count: Int) {
        withEvictionReport { $0.trim(toCount: count, reason: .trimmed) }
    }

    /// Evicts least recently used entries until the total cost is at most `cost`
    /// (reason ``EvictionReason/trimmed``).
    ///
    /// ```swift
    /// cache.trim(toCost: 10 * 1024 * 1024)
    /// ```
    public func trim(toCost cost: Int) {
        withEvictionReport { $0.trim(toCost: cost, reason: .trimmed) }
    }

    /// Evicts every entry written `age` seconds ago or earlier (reason
    /// ``EvictionReason/trimmed``), and every expired one. Looks at every entry: O(n).
    ///
    /// ```swift
    /// cache.trim(toAge: 24 * 3600) // nothing older than a day
    /// ```
    public func trim(toAge age: TimeInterval) {
        let now = MemoryCacheStorage<Key, Value>.time(from: clock, coarse: readsCoarseTime)
        withEvictionReport { $0.trim(toAge: age, now: now) }
    }

    /// Evicts every expired entry now (reason ``EvictionReason/expired``).
    ///
    /// Every call already drops expired entries before it does anything else, so this is
    /// only needed to release their memory in a cache that is otherwise left alone.
    ///
    /// ```swift
    /// cache.removeExpired()
    /// ```
    public func removeExpired() {
        let now = MemoryCacheStorage<Key, Value>.time(from: clock, coarse: readsCoarseTime)
        withEvictionReport { $0.removeExpired(now: now) }
    }

    /// Frees memory under memory pressure: drops expired entries, then least recently used
    /// ones until at most `fraction` of the entries and of the total cost remain, and returns
    /// spare storage capacity to the system.
    ///
    /// Apps call it from their memory warning handler
    /// (`UIApplication.didReceiveMemoryWarningNotification` on iOS, a
    /// `DispatchSource.makeMemoryPressureSource` handler on macOS and Linux). Evicted entries are
    /// reported with ``EvictionReason/purged``.
    ///
    /// ```swift
    /// NotificationCenter.default.addObserver(
    ///     forName: UIApplication.didReceiveMemoryWarningNotification, object: nil, queue: nil
    /// ) { _ in cache.purge() }
    /// cache.purge(keeping: 0.25) // keep the most recently used quarter
    /// ```
    ///
    /// - parameter fraction: The share of entries and cost to keep, from 0 (everything goes,
    ///   the default) to 1.
    public func purge(keeping fraction: Double = 0) {
        let now = MemoryCacheStorage<Key, Value>.time(from: clock, coarse: readsCoarseTime)
        withEvictionReport { $0.purge(keeping: fraction, now: now) }
    }
}
