public import Foundation
public import StashCore

/// The policy of ``MemoryCache``: the recency list, costs, deadlines and limits, under the
/// cache's policy lock, over a hash table split in stripes (``MemoryCacheStripes``) that
/// reads use alone.
///
/// **Recency, CLOCK-style.** A write puts its entry at the newest end of the list. A read
/// only sets the entry's `referenced` mark, in its stripe: no list move and no policy lock,
/// so a hit touches one entry's memory and one stripe's lock. Eviction takes the least
/// recently used entry by the second-chance rule: from the oldest end, a marked entry is
/// moved to the newest end with its mark cleared, and the first unmarked entry goes. An entry
/// read since it was last passed over therefore always outlives one that was not, as in LRU;
/// among entries read in the same round, order of writing decides instead of order of
/// reading.
///
/// **Layout.** What a hit needs (the value, the mark, the entry's slot) lives beside its key
/// in one bucket of its stripe's hash table (``MemoryCacheTable``), so a hit in a large cache
/// misses the processor's caches once, where a `Dictionary` misses twice (its keys and
/// values are two arrays). The recency list lives densely in `entries[0..<count]` (key, hash
/// and links; a removal moves the last entry into the hole) with each entry's cold fields
/// (cost, write time, sliding interval), which a write fills in the same place: no per-node
/// object and no per-node reference counting.
///
/// Not thread-safe: ``MemoryCache`` only touches it under its policy lock, and each stripe
/// under that stripe's lock besides.
@usableFromInline
struct MemoryCacheStorage<Key: Hashable, Value> {
    @usableFromInline typealias Item = MemoryCacheStripe<Key, Value>.Item

    /// An entry's place in the recency list, and its cold fields (cost, write time, sliding
    /// interval): what a write and an eviction touch, in one place.
    @usableFromInline
    struct Entry {
        @usableFromInline var key: Key
        /// The key's `hashValue`, kept so that eviction finds its stripe and bucket without
        /// hashing the key again.
        @usableFromInline var hash: Int
        // 32-bit links keep entries small.
        @usableFromInline var olderSlot: Int32
        @usableFromInline var newerSlot: Int32
        @usableFromInline var cost: Int
        /// When the value was written, in seconds since the reference date.
        @usableFromInline var written: Double
        /// The sliding interval, or 0 when reads do not extend the deadline.
        @usableFromInline var sliding: Double

        @inlinable
        init(key: Key, hash: Int, older: Int, newer: Int, cost: Int, written: Double, sliding: Double) {
            self.key = key
            self.hash = hash
            olderSlot = Int32(truncatingIfNeeded: older)
            newerSlot = Int32(truncatingIfNeeded: newer)
            self.cost = cost
            self.written = written
            self.sliding = sliding
        }

        /// The next less recently used entry, or -1 for the oldest.
        @inlinable
        var older: Int {
            get { Int(olderSlot) }
            set { olderSlot = Int32(truncatingIfNeeded: newValue) }
        }

        /// The next more recently used entry, or -1 for the newest.
        @inlinable
        var newer: Int {
            get { Int(newerSlot) }
            set { newerSlot = Int32(truncatingIfNeeded: newValue) }
        }
    }

    /// An entry that left the cache on its own, waiting to be reported once the lock is released.
    @usableFromInline
    struct Evicted {
        @usableFromInline var key: Key
        @usableFromInline var value: Value
        @usableFromInline var reason: EvictionReason

        @inlinable
        init(key: Key, value: Value, reason: EvictionReason) {
            self.key = key
            self.value = value
            self.reason = reason
        }
    }

    /// Each key's value, mark and slot, in its stripe.
    @usableFromInline let stripes: MemoryCacheStripes<Key, Value>
    @usableFromInline var entries: ContiguousArray<Entry> = []
    @usableFromInline var deadlines = DeadlineHeap()
    @usableFromInline var newest = -1
    @usableFromInline var oldest = -1
    @usableFromInline var totalCost = 0
    @usableFromInline var evictions = 0
    @usableFromInline var pending: ContiguousArray<Evicted> = []

    @usableFromInline let countLimit: Int
    @usableFromInline let costLimit: Int
    /// The maximum age in seconds, or infinity.
    @usableFromInline let maxAge: Double
    @usableFromInline let reportsEvictions: Bool
    @usableFromInline let clock: any StashClock
    /// The clock is the system's: time comes from its cheaper coarse reading.
    @usableFromInline let readsCoarseTime: Bool

    @inlinable
    init(stripes: MemoryCacheStripes<Key, Value>, countLimit: Int?, costLimit: Int?, maxAge: Double?, reportsEvictions: Bool, clock: any StashClock) {
        self.stripes = stripes
        self.countLimit = max(0, countLimit ?? .max)
        self.costLimit = max(0, costLimit ?? .max)
        self.maxAge = max(0, maxAge ?? .infinity)
        self.reportsEvictions = reportsEvictions
        self.clock = clock
        readsCoarseTime = clock is SystemClock
    }

    @inlinable
    var count: Int { entries.count }

    @inlinable
    var now: Double { Self.time(from: clock, coarse: readsCoarseTime) }

    /// `clock`'s time in seconds since the reference date; the system clock's coarse reading
    /// when `coarse` (a few milliseconds of resolution: deadlines and ages are that precise).
    @inlinable
    static func time(from clock: any StashClock, coarse: Bool) -> Double {
        coarse ? SystemClock.coarseReferenceSeconds : clock.now.timeIntervalSinceReferenceDate
    }

    // MARK: Reading

    /// The earliest deadline of the whole cache: a bound below every stripe's deadlines.
    @inlinable
    var earliestDeadline: Double { deadlines.first?.deadline ?? .infinity }

    /// The value for `key` (whose `hashValue` is `hash`), now marked as used; `nil` when
    /// absent or expired. The read of a stripe that may hold an expired entry, or of an entry
    /// whose deadline slides: it removes what has expired, raises the stripe's bound, and
    /// moves a sliding deadline.
    @inlinable
    mutating func value(forKey key: Key, hash: Int) -> Value? {
        var time = Double.nan
        if !deadlines.isEmpty {
            time = now
            removeExpired(now: time)
        }
        let bound = earliestDeadline
        let found: Item? = stripes.withStripe(hash: hash) { stripe in
            stripe.expiresNoEarlierThan = bound
            guard let position = stripe.table.find(key, hash: hash) else {
                stripe.misses &+= 1
                return nil
            }
            stripe.hits &+= 1
            if !stripe.table[itemAt: position].referenced { stripe.table[itemAt: position].referenced = true }
            return stripe.table[itemAt: position]
        }
        guard let found else { return nil }
        if found.slides, !time.isNaN {
            // A later deadline than the one it replaces (a hit moves it forward, and the age
            // limit caps both alike), so the stripe's bound stays below it.
            let slot = Int(found.slot)
            let entry = entries[slot]
            deadlines.setDeadline(min(time + entry.sliding, entry.written + maxAge), for: slot)
        }
        return found.value
    }

    /// Whether `key` has a live entry; leaves the recency order and the statistics alone.
    @inlinable
    mutating func contains(_ key: Key, hash: Int) -> Bool {
        removeExpiredIfAny()
        let bound = earliestDeadline
        return stripes.withStripe(hash: hash) { stripe in
            stripe.expiresNoEarlierThan = bound
            return stripe.table.find(key, hash: hash) != nil
        }
    }

    // MARK: Writing

    /// Stores `value` as the most recently used entry, then enforces the limits.
    @inlinable
    mutating func set(_ value: Value, forKey key: Key, hash: Int, cost: Int, expiry: ExpiryPolicy, now: Double) {
        if !deadlines.isEmpty { removeExpired(now: now) }
        let deadline = min(expiry.deadline(fromReferenceSeconds: now), now + maxAge)
        let sliding: Double
        if case .sliding(let interval) = expiry { sliding = max(interval, .leastNonzeroMagnitude) } else { sliding = 0 }
        if !(deadline > now) {
            // Already expired (or a NaN interval): it replaces the old value with nothing.
            _ = removeValue(forKey: key, hash: hash)
            return
        }
        let cost = max(0, cost)
        // A new key's item comes in with the next free slot, an existing key's keeps its own.
        let freeSlot = entries.count
        let slot = stripes.withStripe(hash: hash) { stripe in
            if deadline < stripe.expiresNoEarlierThan { stripe.expiresNoEarlierThan = deadline }
            if let position = stripe.table.find(key, hash: hash) {
                return MemoryCacheStripe<Key, Value>.store(value, slides: sliding > 0, in: &stripe.table[itemAt: position])
            }
            stripe.table.insert(Item(value: value, slot: freeSlot, slides: sliding > 0), forKey: key, hash: hash)
            return freeSlot
        }
        if slot != freeSlot {
            totalCost -= entries[slot].cost
            entries[slot].cost = cost
            entries[slot].written = now
            entries[slot].sliding = sliding
            moveToNewest(slot)
        } else {
            entries.append(Entry(key: key, hash: hash, older: newest, newer: -1, cost: cost, written: now, sliding: sliding))
            if newest >= 0 { entries[newest].newer = slot } else { oldest = slot }
            newest = slot
        }
        totalCost += cost
        if deadline < .infinity || !deadlines.isEmpty { deadlines.setDeadline(deadline, for: slot) }
        enforceLimits()
    }

    /// Removes the entry for `key` and returns its value; an expired entry counts as absent.
    @inlinable
    mutating func removeValue(forKey key: Key, hash: Int) -> Value? {
        removeExpiredIfAny()
        let removed: Item? = stripes.withStripe(hash: hash) { stripe in
            stripe.table.find(key, hash: hash).map { stripe.table.remove(at: $0) }
        }
        guard let removed else { return nil }
        removeEntry(at: Int(removed.slot))
        return removed.value
    }

    /// Drops least recently used entries until the count and cost limits hold.
    @inlinable
    mutating func enforceLimits() {
        while entries.count > countLimit { evictLeastRecentlyUsed(.countLimit) }
        while totalCost > costLimit { evictLeastRecentlyUsed(.costLimit) }
    }

    /// Evicts the least recently used entry by the second-chance rule: marked entries at the
    /// oldest end move to the newest end, unmarked, until the oldest is unmarked, which goes.
    /// At most one pass. The storage must not be empty.
    @inlinable
    mutating func evictLeastRecentlyUsed(_ reason: EvictionReason) {
        while true {
            let slot = oldest
            let key = entries[slot].key
            let hash = entries[slot].hash
            let taken: Item? = stripes.withStripe(hash: hash) { stripe in
                // The list and the stripes always hold the same keys (see `checkInvariants()`).
                let position = stripe.table.find(key, hash: hash)!
                if stripe.table[itemAt: position].referenced {
                    stripe.table[itemAt: position].referenced = false
                    return nil
                }
                return stripe.table.remove(at: position)
            }
            guard let taken else {
                moveToNewest(slot)
                continue
            }
            removeEntry(at: slot)
            evictions &+= 1
            if reportsEvictions { pending.append(Evicted(key: key, value: taken.value, reason: reason)) }
            return
        }
    }

    // MARK: ExpiryPolicy

    @inlinable
    mutating func removeExpiredIfAny() {
        if !deadlines.isEmpty { removeExpired(now: now) }
    }

    /// Drops every entry whose deadline has come.
    @inlinable
    mutating func removeExpired(now: Double) {
        while let first = deadlines.first, first.deadline <= now {
            evict(first.slot, .expired)
        }
    }

    // MARK: Linking

    /// Makes `slot` the most recently used entry.
    @inlinable
    mutating func moveToNewest(_ slot: Int) {
        guard slot != newest else { return }
        unlink(slot)
        entries[slot].older = newest
        entries[slot].newer = -1
        entries[newest].newer = slot
        newest = slot
    }

    /// Takes `slot` out of the recency list (it stays in `entries`).
    @inlinable
    mutating func unlink(_ slot: Int) {
        let older = entries[slot].older
        let newer = entries[slot].newer
        if newer >= 0 { entries[newer].older = older } else { newest = older }
        if older >= 0 { entries[older].newer = newer } else { oldest = newer }
    }

    // MARK: Removing

    /// Removes the entry in `slot` and reports it as evicted for `reason`.
    @inlinable
    mutating func evict(_ slot: Int, _ reason: EvictionReason) {
        let removed = remove(at: slot)
        evictions &+= 1
        if reportsEvictions {
            pending.append(Evicted(key: removed.key, value: removed.value, reason: reason))
        }
    }

    /// Removes the entry in `slot` from its stripe and the recency list.
    @inlinable
    mutating func remove(at slot: Int) -> (key: Key, value: Value) {
        let key = entries[slot].key
        let hash = entries[slot].hash
        // The list and the stripes always hold the same keys (see `checkInvariants()`).
        let item = stripes.withStripe(hash: hash) { stripe in stripe.table.remove(at: stripe.table.find(key, hash: hash)!) }
        removeEntry(at: slot)
        return (key, item.value)
    }

    /// Takes the entry in `slot`, already out of its stripe, out of the recency list and the
    /// deadlines, moving the last entry into the hole.
    @inlinable
    mutating func removeEntry(at slot: Int) {
        unlink(slot)
        deadlines.remove(slot)
        totalCost -= entries[slot].cost
        let last = entries.count - 1
        if slot != last {
            entries.swapAt(slot, last)
            let older = entries[slot].older
            let newer = entries[slot].newer
            if older >= 0 { entries[older].newer = slot } else { oldest = slot }
            if newer >= 0 { entries[newer].older = slot } else { newest = slot }
            let moved = entries[slot].key
            let hash = entries[slot].hash
            stripes.withStripe(hash: hash) { stripe in
                if let position = stripe.table.find(moved, hash: hash) { stripe.table[itemAt: position].slot = Int32(truncatingIfNeeded: slot) }
            }
            deadlines.renumber(last, to: slot)
        }
        entries.removeLast()
    }

    /// Hands over the entries evicted since the last call, to be reported outside the lock.
    @inlinable
    mutating func takeEvicted() -> ContiguousArray<Evicted> {
        guard !pending.isEmpty else { return [] }
        defer { pending = [] }
        return pending
    }
}

extension ExpiryPolicy {
    /// ``deadline(from:)`` in seconds since the reference date, infinity for `.never`.
    @inlinable
    func deadline(fromReferenceSeconds now: Double) -> Double {
        switch self {
        case .never: return .infinity
        case .after(let seconds), .sliding(let seconds): return now + seconds
        case .at(let date): return date.timeIntervalSinceReferenceDate
        }
    }
}
