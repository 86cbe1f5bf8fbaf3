public import Foundation
public import StashCore

/// The engine of ``MemoryCache``: a hash map into a doubly-linked recency list, kept in
/// contiguous arrays and addressed by index.
///
/// **Recency, CLOCK-style.** A write puts its entry at the newest end of the list. A read
/// only sets the entry's `referenced` mark: no list move, so a hit touches one entry's
/// memory instead of three. Eviction takes the least recently used entry by the second-chance
/// rule: from the oldest end, a marked entry is moved to the newest end with its mark
/// cleared, and the first unmarked entry goes. An entry read since it was last passed over
/// therefore always outlives one that was not, as in LRU; among entries read in the same
/// round, order of writing decides instead of order of reading.
///
/// **Layout.** What a hit needs (the value, the mark, the entry's slot) lives beside its key
/// in one bucket of the hash table (``MemoryCacheTable``), so a hit in a large cache misses
/// the processor's caches once, where a `Dictionary` misses twice (its keys and values are
/// two arrays). The recency list lives
/// densely in `entries[0..<count]` (key and links; a removal moves the last entry into the
/// hole) with each entry's cold fields (cost, write time, sliding interval), which a write
/// fills in the same place: no per-node object and no per-node reference counting.
///
/// Not thread-safe: ``MemoryCache`` only touches it under its lock.
@usableFromInline
struct MemoryCacheStorage<Key: Hashable, Value> {
    /// What the map holds for a key: everything a hit touches.
    @usableFromInline
    struct Item {
        @usableFromInline var value: Value
        /// Where the entry's links and cold fields are.
        @usableFromInline var slot: Int32
        /// Read since eviction last passed over it: it gets a second chance.
        @usableFromInline var referenced: Bool

        @inlinable
        init(value: Value, slot: Int) {
            self.value = value
            self.slot = Int32(truncatingIfNeeded: slot)
            referenced = false
        }
    }

    /// An entry's place in the recency list, and its cold fields (cost, write time, sliding
    /// interval): what a write and an eviction touch, in one place.
    @usableFromInline
    struct Entry {
        @usableFromInline var key: Key
        // 32-bit links keep entries small.
        @usableFromInline var olderSlot: Int32
        @usableFromInline var newerSlot: Int32
        @usableFromInline var cost: Int
        /// When the value was written, in seconds since the reference date.
        @usableFromInline var written: Double
        /// The sliding interval, or 0 when reads do not extend the deadline.
        @usableFromInline var sliding: Double

        @inlinable
        init(key: Key, older: Int, newer: Int, cost: Int, written: Double, sliding: Double) {
            self.key = key
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

    /// Each key's value, mark and slot.
    @usableFromInline var slots = MemoryCacheTable<Key, Item>()
    @usableFromInline var entries: ContiguousArray<Entry> = []
    @usableFromInline var deadlines = DeadlineHeap()
    @usableFromInline var newest = -1
    @usableFromInline var oldest = -1
    @usableFromInline var totalCost = 0
    @usableFromInline var hits = 0
    @usableFromInline var misses = 0
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
    init(countLimit: Int?, costLimit: Int?, maxAge: Double?, reportsEvictions: Bool, clock: any StashClock) {
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

    /// The value for `key`, now marked as used; `nil` when absent or expired.
    @inlinable
    mutating func value(forKey key: Key) -> Value? {
        var time = Double.nan
        if !deadlines.isEmpty {
            time = now
            removeExpired(now: time)
        }
        guard let position = slots.find(key) else {
            misses &+= 1
            return nil
        }
        hits &+= 1
        let item = slots[itemAt: position]
        if !time.isNaN {
            let slot = Int(item.slot)
            if entries[slot].sliding > 0 {
                let entry = entries[slot]
                deadlines.setDeadline(min(time + entry.sliding, entry.written + maxAge), for: slot)
            }
        }
        // Written only when it changes, so that repeated hits leave the cache line clean.
        if !item.referenced { slots[itemAt: position].referenced = true }
        return item.value
    }

    /// Whether `key` has a live entry; leaves the recency order and the statistics alone.
    @inlinable
    mutating func contains(_ key: Key) -> Bool {
        removeExpiredIfAny()
        return slots.find(key) != nil
    }

    // MARK: Writing

    /// Stores `value` as the most recently used entry, then enforces the limits.
    @inlinable
    mutating func set(_ value: Value, forKey key: Key, cost: Int, expiry: ExpiryPolicy, now: Double) {
        if !deadlines.isEmpty { removeExpired(now: now) }
        let deadline = min(expiry.deadline(fromReferenceSeconds: now), now + maxAge)
        let sliding: Double
        if case .sliding(let interval) = expiry { sliding = max(interval, .leastNonzeroMagnitude) } else { sliding = 0 }
        if !(deadline > now) {
            // Already expired (or a NaN interval): it replaces the old value with nothing.
            if let item = slots[key] { _ = remove(at: Int(item.slot)) }
            return
        }
        let cost = max(0, cost)
        // A new key's item comes in with the next free slot, an existing key's keeps its own.
        let freeSlot = entries.count
        let slot: Int
        if let position = slots.find(key) {
            slot = Self.store(value, in: &slots[itemAt: position])
        } else {
            slots.insert(Item(value: value, slot: freeSlot), forKey: key)
            slot = freeSlot
        }
        if slot != freeSlot {
            totalCost -= entries[slot].cost
            entries[slot].cost = cost
            entries[slot].written = now
            entries[slot].sliding = sliding
            moveToNewest(slot)
        } else {
            entries.append(Entry(key: key, older: newest, newer: -1, cost: cost, written: now, sliding: sliding))
            if newest >= 0 { entries[newest].newer = slot } else { oldest = slot }
            newest = slot
        }
        totalCost += cost
        if deadline < .infinity || !deadlines.isEmpty { deadlines.setDeadline(deadline, for: slot) }
        enforceLimits()
    }

    /// Puts `value` in `item`, unmarked, and returns the item's slot.
    @inlinable
    static func store(_ value: Value, in item: inout Item) -> Int {
        item.value = value
        item.referenced = false
        return Int(item.slot)
    }

    /// Removes the entry for `key` and returns its value; an expired entry counts as absent.
    @inlinable
    mutating func removeValue(forKey key: Key) -> Value? {
        removeExpiredIfAny()
        guard let item = slots[key] else { return nil }
        return remove(at: Int(item.slot)).value
    }

    /// Drops least recently used entries until the count and cost limits hold.
    @inlinable
    mutating func enforceLimits() {
        while entries.count > countLimit { evict(leastRecentlyUsed(), .countLimit) }
        while totalCost > costLimit { evict(leastRecentlyUsed(), .costLimit) }
    }

    /// The entry to evict by the second-chance rule: marked entries at the oldest end move
    /// to the newest end, unmarked, until the oldest is unmarked. At most one pass.
    /// The storage must not be empty.
    @inlinable
    mutating func leastRecentlyUsed() -> Int {
        while let position = slots.find(entries[oldest].key), slots[itemAt: position].referenced {
            slots[itemAt: position].referenced = false
            moveToNewest(oldest)
        }
        return oldest
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

    /// Removes the entry in `slot`, moving the last entry into the hole.
    @inlinable
    mutating func remove(at slot: Int) -> (key: Key, value: Value) {
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
            if let position = slots.find(entries[slot].key) { slots[itemAt: position].slot = Int32(truncatingIfNeeded: slot) }
            deadlines.renumber(last, to: slot)
        }
        let removed = entries.removeLast()
        let item = slots.removeValue(forKey: removed.key)
        // The map and the list always hold the same keys (see `checkInvariants()`).
        return (removed.key, item!.value)
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
