public import StashCore

/// One stripe of a ``MemoryCache``'s hash table: the keys whose hash picks it
/// (``MemoryCacheStripes``), each with what a hit needs, and the stripe's hit and miss counts.
/// A read takes this stripe's lock alone; everything else about an entry (its place in the
/// recency order, its cost, its deadline) is ``MemoryCacheStorage``'s, under the cache's
/// policy lock.
///
/// **Expiry without the policy lock.** A read may not return an expired value, and every
/// deadline lives in the policy's heap. So the stripe keeps a bound: no entry of the stripe
/// expires before ``expiresNoEarlierThan``. A write lowers it to its entry's deadline; a read
/// that finds the time at or past it goes through the policy instead, which removes what has
/// expired and raises the bound to the earliest deadline left in the whole cache. Until
/// something can expire, a read never looks at the clock.
///
/// Not thread-safe: only touched under its stripe's lock.
@usableFromInline
struct MemoryCacheStripe<Key: Hashable, Value> {
    /// What the table holds for a key: everything a hit touches.
    @usableFromInline
    struct Item {
        @usableFromInline var value: Value
        /// Where the entry's links and cold fields are in ``MemoryCacheStorage/entries``.
        @usableFromInline var slot: Int32
        /// Read since eviction last passed over it: it gets a second chance.
        @usableFromInline var referenced: Bool
        /// Its deadline slides with every hit, which the policy moves: its reads go there.
        @usableFromInline var slides: Bool

        @inlinable
        init(value: Value, slot: Int, slides: Bool) {
            self.value = value
            self.slot = Int32(truncatingIfNeeded: slot)
            referenced = false
            self.slides = slides
        }
    }

    /// What a read under the stripe's lock alone found.
    @usableFromInline
    enum Read {
        case hit(Value)
        case miss
        /// An entry may have expired, or the entry slides: the read goes through the policy.
        case needsPolicy
    }

    @usableFromInline var table = MemoryCacheTable<Key, Item>()
    @usableFromInline var hits = 0
    @usableFromInline var misses = 0
    /// No entry of this stripe expires before this time (seconds since the reference date).
    @usableFromInline var expiresNoEarlierThan = Double.infinity

    @inlinable
    init() {}

    /// Whether an entry of the stripe may have expired: the clock is read only when one could.
    @inlinable
    func mayHaveExpired(clock: any StashClock, coarse: Bool) -> Bool {
        expiresNoEarlierThan < .infinity
            && !(MemoryCacheStorage<Key, Value>.time(from: clock, coarse: coarse) < expiresNoEarlierThan)
    }

    /// The value for `key` (whose `hashValue` is `hash`), now marked as used, when the
    /// stripe can answer alone.
    @inlinable
    mutating func value(forKey key: Key, hash: Int, clock: any StashClock, coarse: Bool) -> Read {
        if mayHaveExpired(clock: clock, coarse: coarse) { return .needsPolicy }
        guard let position = table.find(key, hash: hash) else {
            misses &+= 1
            return .miss
        }
        let item = table[itemAt: position]
        if item.slides { return .needsPolicy }
        hits &+= 1
        // Written only when it changes, so that repeated hits leave the cache line clean.
        if !item.referenced { table[itemAt: position].referenced = true }
        return .hit(item.value)
    }

    /// Whether `key` has a live entry, or `nil` when an entry may have expired and the policy
    /// must answer.
    @inlinable
    func contains(_ key: Key, hash: Int, clock: any StashClock, coarse: Bool) -> Bool? {
        if mayHaveExpired(clock: clock, coarse: coarse) { return nil }
        return table.find(key, hash: hash) != nil
    }

    /// Puts `value` in `item`, unmarked, and returns the item's slot.
    @inlinable
    static func store(_ value: Value, slides: Bool, in item: inout Item) -> Int {
        item.value = value
        item.referenced = false
        item.slides = slides
        return Int(item.slot)
    }
}
