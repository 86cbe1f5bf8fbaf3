/// Why a cache dropped an entry on its own, as told to its eviction callback.
///
/// A value removed with `removeValue(forKey:)` or replaced by a new `set` is not an eviction:
/// the caller already knows about it.
///
/// ```swift
/// let cache = MemoryCache<String, Data>(configuration: .init(countLimit: 100) { key, _, reason in
///     if reason == .countLimit { print("\(key) made room") }
/// })
/// ```
public enum EvictionReason: String, Sendable, Hashable, CaseIterable {
    /// The count limit was exceeded; the least recently used entry left.
    case countLimit
    /// The cost limit was exceeded; the least recently used entry left.
    case costLimit
    /// The entry's expiry or the cache's maximum age was reached.
    case expired
    /// An explicit `trim(toCount:)`, `trim(toCost:)` or `trim(toAge:)` removed it.
    case trimmed
    /// `purge(keeping:)` removed it, typically on a memory warning.
    case purged
    /// `removeAll()` removed it.
    case removedAll
}
