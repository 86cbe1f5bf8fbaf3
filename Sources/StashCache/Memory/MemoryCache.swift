import Foundation
public import StashCore

/// A fast, thread-safe, least-recently-used memory cache with count, cost and age limits and
/// per-entry expiry: NSCache done properly, on every platform.
///
/// ```swift
/// let avatars = MemoryCache<String, Data>(configuration: .init(countLimit: 200, defaultExpiry: .after(600)))
/// avatars.set(png, forKey: "ada")
/// avatars["grace"] = other
/// if let data = avatars.value(forKey: "ada") { show(data) }
/// ```
///
/// - Every call is O(1) (amortised), except trims, `purge` and `removeAll`, which are
///   O(entries removed), and `trim(toAge:)`, which looks at every entry.
/// - When a limit is exceeded, the least recently used entries leave first. Recency is
///   CLOCK-style: a write makes its entry the newest, a read marks it, and eviction moves
///   marked entries from the old end to the new one (clearing the mark) before dropping the
///   first unmarked entry, so a hit costs no list update. The limits hold when each call
///   returns, and no call ever returns an expired value.
/// - Keys are equal when Swift's `==` says so (the rule of every Stash store,
///   `StoredKey`): `"café"` precomposed or decomposed is one key. Nothing is normalized,
///   since nothing is saved: `String`'s own hashing already treats them as one.
/// - Thread-safe: any thread may call any method. Reads scale with threads: the table is
///   split in stripes, each under a lock of its own, and a read takes only its key's stripe,
///   so reads of different keys seldom wait for each other. Writes, removals and evictions
///   take the cache's policy lock (the recency order, costs and deadlines), then the stripes
///   they touch. No lock is held while your code (the cost function, the eviction callback)
///   runs, so both may call back into the cache. The clock is read only by calls that need
///   it: until an entry can expire, reads never consult it.
/// - Time has a resolution of a few milliseconds with the default clock: on Linux it is the
///   kernel's coarse wall clock, a fraction of the cost of a precise read on every write, so
///   an entry may outlive its deadline by that much (and never by more).
/// - On Linux, the hash table of a large cache (4 MB and more, from about 60,000 entries of
///   small keys and values) asks the kernel for transparent huge pages, so that random reads
///   skip most page-table walks; the table may then take up to a third more memory.
/// - Nothing survives the process: this is memory only. Pair it with `DiskCache` (or use
///   `HybridCache`) for persistence.
public final class MemoryCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// The limits and hooks this cache was created with.
    public let configuration: Configuration

    /// The policy: recency, costs, deadlines, limits (the policy lock).
    @usableFromInline let state: LockedValue<MemoryCacheStorage<Key, Value>>
    /// The hash table, in stripes each under its own lock; taken after the policy lock.
    @usableFromInline let stripes: MemoryCacheStripes<Key, Value>
    @usableFromInline let clock: any StashClock
    @usableFromInline let readsCoarseTime: Bool
    @usableFromInline let costFunction: CostFunction?
    @usableFromInline let onEvict: EvictionHandler?
    @usableFromInline let defaultExpiry: ExpiryPolicy

    /// Creates an empty cache.
    ///
    /// ```swift
    /// let cache = MemoryCache<Int, String>(configuration: .init(countLimit: 1000))
    /// let testCache = MemoryCache<Int, String>(configuration: .init(clock: ManualClock()))
    /// ```
    ///
    /// - parameters:
    ///   - configuration: Limits, default expiry, cost function, eviction callback and clock.
    public init(configuration: Configuration = Configuration()) {
        let clock = configuration.clock
        self.configuration = configuration
        self.clock = clock
        readsCoarseTime = clock is SystemClock
        costFunction = configuration.cost
        onEvict = configuration.onEvict
        defaultExpiry = configuration.defaultExpiry
        let stripes = MemoryCacheStripes<Key, Value>(count: MemoryCacheStripes<Key, Value>.defaultCount)
        self.stripes = stripes
        state = LockedValue(MemoryCacheStorage(
            stripes: stripes,
            countLimit: configuration.countLimit,
            costLimit: configuration.costLimit,
            maxAge: configuration.ageLimit,
            reportsEvictions: configuration.onEvict != nil,
            clock: clock
        ))
    }

    /// The value for `key`, which is marked as recently used (it survives the next eviction
    /// pass); `nil` when there is none or it has expired. A hit on a sliding entry extends
    /// its deadline.
    ///
    /// ```swift
    /// if let user = users.value(forKey: id) { return user }
    /// ```
    @inlinable
    public func value(forKey key: Key) -> Value? {
        let hash = key.hashValue
        switch stripes.withStripe(hash: hash, { $0.value(forKey: key, hash: hash, clock: clock, coarse: readsCoarseTime) }) {
        case .hit(let value): return value
        case .miss: return nil
        case .needsPolicy: return withEvictionReport { $0.value(forKey: key, hash: hash) }
        }
    }

    /// Stores `value` for `key` as the most recently used entry, replacing any previous one,
    /// then evicts least recently used entries until the limits hold.
    ///
    /// ```swift
    /// cache.set(thumbnail, forKey: url, cost: thumbnail.count, expiry: .after(300))
    /// ```
    ///
    /// An expiry whose deadline has already passed removes the key's current value instead.
    ///
    /// - parameters:
    ///   - value: The value to keep.
    ///   - key: Its key.
    ///   - cost: Its cost toward ``Configuration/costLimit``; by default the configuration's
    ///     cost function decides (or 0 without one). Negative costs count as 0.
    ///   - expiry: When it expires; by default ``Configuration/defaultExpiry``.
    @inlinable
    public func set(_ value: Value, forKey key: Key, cost: Int? = nil, expiry: ExpiryPolicy? = nil) {
        let cost = cost ?? costFunction?(key, value) ?? 0
        let expiry = expiry ?? defaultExpiry
        let now = MemoryCacheStorage<Key, Value>.time(from: clock, coarse: readsCoarseTime)
        let hash = key.hashValue
        withEvictionReport { $0.set(value, forKey: key, hash: hash, cost: cost, expiry: expiry, now: now) }
    }

    /// Removes the entry for `key` and returns its value (`nil` when there was none or it had
    /// expired). This is not an eviction: the callback is not told.
    ///
    /// ```swift
    /// let old = cache.removeValue(forKey: "ada")
    /// ```
    @inlinable
    @discardableResult
    public func removeValue(forKey key: Key) -> Value? {
        let hash = key.hashValue
        return withEvictionReport { $0.removeValue(forKey: key, hash: hash) }
    }

    /// The value for `key`, as ``value(forKey:)``; assigning stores it with the default cost
    /// and expiry, and assigning `nil` removes it.
    ///
    /// ```swift
    /// cache["ada"] = avatar
    /// cache["ada"] = nil
    /// ```
    @inlinable
    public subscript(key: Key) -> Value? {
        get { value(forKey: key) }
        set {
            if let newValue { set(newValue, forKey: key) } else { removeValue(forKey: key) }
        }
    }

    /// Whether `key` has a live entry. Unlike a read, this does not change the recency order
    /// nor count as a hit or a miss.
    ///
    /// ```swift
    /// if !cache.contains(url) { prefetch(url) }
    /// ```
    public func contains(_ key: Key) -> Bool {
        let hash = key.hashValue
        if let found = stripes.withStripe(hash: hash, { $0.contains(key, hash: hash, clock: clock, coarse: readsCoarseTime) }) {
            return found
        }
        return withEvictionReport { $0.contains(key, hash: hash) }
    }

    /// The number of live entries.
    ///
    /// ```swift
    /// print("\(cache.count) entries")
    /// ```
    public var count: Int {
        withEvictionReport { storage in
            storage.removeExpiredIfAny()
            return storage.count
        }
    }

    /// The total cost of the live entries.
    ///
    /// ```swift
    /// print("\(cache.totalCost / 1024) KB cached")
    /// ```
    public var totalCost: Int {
        withEvictionReport { storage in
            storage.removeExpiredIfAny()
            return storage.totalCost
        }
    }

    /// The keys of the entries held now, live or expired, in no order: for a caller that
    /// picks entries to remove by key (the HTTP cache's purge of a URL prefix).
    package var keys: [Key] {
        (0..<stripes.count).flatMap { index in stripes.withStripe(at: index) { $0.table.keys } }
    }

    /// Removes every entry; the eviction callback hears of each with ``EvictionReason/removedAll``.
    ///
    /// ```swift
    /// cache.removeAll() // at logout
    /// ```
    public func removeAll() {
        withEvictionReport { $0.removeAll(reason: .removedAll) }
    }

    /// Runs `body` under the lock, then reports what it evicted once the lock is released.
    @inlinable
    func withEvictionReport<T>(_ body: (inout MemoryCacheStorage<Key, Value>) -> T) -> T {
        let (result, evicted) = state.withLock { storage in
            // `nil`, not an empty array, when nothing left: a hit then retains nothing more.
            (body(&storage), storage.pending.isEmpty ? nil : storage.takeEvicted())
        }
        if let evicted { report(evicted) }
        return result
    }

    /// Tells the eviction callback about `evicted`. Never called with the lock held.
    @inlinable
    func report(_ evicted: ContiguousArray<MemoryCacheStorage<Key, Value>.Evicted>) {
        guard !evicted.isEmpty, let onEvict else { return }
        for entry in evicted { onEvict(entry.key, entry.value, entry.reason) }
    }
}
