import Foundation
public import StashCore

/// A fixed-capacity key-value pool in which every entry expires; when it is full, a new entry
/// pushes out the one closest to expiry (Kache's pool).
///
/// ```swift
/// let recent = ExpiringPool<String, Product>(countLimit: 50, defaultExpiry: .after(15 * 60))
/// recent.set(product, forKey: product.id)
/// recent.set(flashSale, forKey: "sale", expiry: .at(saleEnd))
/// if let product = recent.value(forKey: id) { show(product) }
/// try recent.save(to: url)   // and at launch: try ExpiringPool(contentsOf: url, countLimit: 50, defaultExpiry: .after(900))
/// ```
///
/// - Reads and writes are O(log n); expired entries are never returned and are dropped by
///   the first call that notices them.
/// - Entries set to `.never` expire after every other entry, so they leave a full pool last.
/// - Thread-safe: one lock guards the pool, and no user code runs under it.
/// - Memory only until ``save(to:durability:)``, which writes the whole pool atomically.
public final class ExpiringPool<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// The most entries the pool holds.
    public let countLimit: Int
    /// The expiry of an entry written without one.
    public let defaultExpiry: ExpiryPolicy

    let state: LockedValue<ExpiringPoolStorage<Key, Value>>
    let clock: any StashClock

    /// Creates an empty pool.
    ///
    /// ```swift
    /// let pool = ExpiringPool<Int, String>(countLimit: 100, defaultExpiry: .after(60))
    /// ```
    ///
    /// - parameters:
    ///   - countLimit: The most entries held; 0 holds nothing.
    ///   - defaultExpiry: The expiry of entries written without one.
    ///   - clock: Where expiry reads the time; tests pass a `ManualClock`.
    public init(countLimit: Int, defaultExpiry: ExpiryPolicy, clock: any StashClock = SystemClock()) {
        self.countLimit = max(0, countLimit)
        self.defaultExpiry = defaultExpiry
        self.clock = clock
        state = LockedValue(ExpiringPoolStorage(capacity: countLimit))
    }

    var now: Double { clock.now.timeIntervalSinceReferenceDate }

    /// The value for `key`, or `nil` when absent or expired. A hit on a sliding entry extends it.
    ///
    /// ```swift
    /// if let product = pool.value(forKey: id) { show(product) }
    /// ```
    public func value(forKey key: Key) -> Value? {
        let now = now
        return state.withLock { $0.value(forKey: key, now: now) }
    }

    /// Stores `value` for `key`, replacing any previous value. When the pool is full, the entry
    /// closest to expiry leaves first, and is returned.
    ///
    /// ```swift
    /// if let pushedOut = pool.set(item, forKey: id) { log("dropped \(pushedOut.key)") }
    /// ```
    ///
    /// An expiry whose deadline has already passed removes the key instead.
    @discardableResult
    public func set(_ value: Value, forKey key: Key, expiry: ExpiryPolicy? = nil) -> (key: Key, value: Value)? {
        let expiry = expiry ?? defaultExpiry
        let now = now
        let deadline = expiry.deadline(fromReferenceSeconds: now)
        var sliding = 0.0
        if case .sliding(let interval) = expiry { sliding = interval }
        let evicted = state.withLock { $0.set(value, forKey: key, deadline: deadline, sliding: sliding, now: now) }
        return evicted.map { ($0.key, $0.value) }
    }

    /// Removes the entry for `key` and returns its value, `nil` when absent or expired.
    ///
    /// ```swift
    /// pool.removeValue(forKey: id)
    /// ```
    @discardableResult
    public func removeValue(forKey key: Key) -> Value? {
        let now = now
        return state.withLock { $0.removeValue(forKey: key, now: now) }
    }

    /// The value for `key`; assigning stores with the default expiry, assigning `nil` removes.
    ///
    /// ```swift
    /// pool["sale"] = banner
    /// ```
    public subscript(key: Key) -> Value? {
        get { value(forKey: key) }
        set {
            if let newValue { set(newValue, forKey: key) } else { removeValue(forKey: key) }
        }
    }

    /// Whether `key` has a live entry (without extending a sliding one).
    ///
    /// ```swift
    /// if !pool.contains(id) { fetch(id) }
    /// ```
    public func contains(_ key: Key) -> Bool {
        let now = now
        return state.withLock { storage in
            storage.removeExpired(now: now)
            return storage.contains(key)
        }
    }

    /// The number of live entries.
    ///
    /// ```swift
    /// print("\(pool.count) of \(pool.countLimit)")
    /// ```
    public var count: Int {
        let now = now
        return state.withLock { storage in
            storage.removeExpired(now: now)
            return storage.count
        }
    }

    /// The live entries, soonest to expire first.
    ///
    /// ```swift
    /// for (key, value) in pool.entries { print(key, value) }
    /// ```
    public var entries: [(key: Key, value: Value)] {
        let now = now
        return state.withLock { storage in
            storage.removeExpired(now: now)
            return storage.snapshot().map { ($0.entry.key, $0.entry.value) }
        }
    }

    /// Drops every expired entry now, releasing its memory.
    ///
    /// ```swift
    /// pool.removeExpired()
    /// ```
    public func removeExpired() {
        let now = now
        state.withLock { $0.removeExpired(now: now) }
    }

    /// Removes every entry.
    ///
    /// ```swift
    /// pool.removeAll() // at logout
    /// ```
    public func removeAll() {
        state.withLock { $0.removeAll() }
    }

    /// The broken internal invariants, empty when the pool is sound. Compiled in every configuration.
    package func checkInvariants() -> [String] {
        state.withLock { $0.invariantViolations() }
    }
}
