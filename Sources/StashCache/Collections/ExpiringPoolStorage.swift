import StashCore

/// The engine of ``ExpiringPool``: entries in dense arrays, a map from key to slot, and a heap of
/// deadlines that says which entry expires first. Not thread-safe: ``ExpiringPool`` only touches it
/// under its lock.
struct ExpiringPoolStorage<Key: Hashable, Value> {
    struct Entry {
        var key: Key
        var value: Value
        /// The sliding interval, or 0 when reads do not extend the deadline.
        var sliding: Double
    }

    /// Stands for "never": such entries still sit in the heap, so a full pool of them can
    /// evict one, but after every entry that has a real deadline.
    static var never: Double { .greatestFiniteMagnitude }

    let capacity: Int
    private(set) var slots: [Key: Int] = [:]
    private(set) var entries: ContiguousArray<Entry> = []
    private(set) var deadlines = DeadlineHeap()

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    var count: Int { entries.count }

    mutating func value(forKey key: Key, now: Double) -> Value? {
        removeExpired(now: now)
        guard let slot = slots[key] else { return nil }
        if entries[slot].sliding > 0 {
            deadlines.setDeadline(now + entries[slot].sliding, for: slot)
        }
        return entries[slot].value
    }

    func contains(_ key: Key) -> Bool { slots[key] != nil }

    /// Stores an entry; when the pool is full, first evicts the entry closest to expiry and
    /// returns it. A deadline already passed removes the key instead.
    mutating func set(_ value: Value, forKey key: Key, deadline: Double, sliding: Double, now: Double) -> Entry? {
        removeExpired(now: now)
        guard deadline > now, capacity > 0 else {
            if let slot = slots[key] { _ = remove(at: slot) }
            return nil
        }
        let deadline = min(deadline, Self.never)
        if let slot = slots[key] {
            entries[slot].value = value
            entries[slot].sliding = sliding
            deadlines.setDeadline(deadline, for: slot)
            return nil
        }
        var evicted: Entry?
        if entries.count >= capacity, let first = deadlines.first {
            evicted = remove(at: first.slot)
        }
        let slot = entries.count
        entries.append(Entry(key: key, value: value, sliding: sliding))
        slots[key] = slot
        deadlines.setDeadline(deadline, for: slot)
        return evicted
    }

    mutating func removeValue(forKey key: Key, now: Double) -> Value? {
        removeExpired(now: now)
        guard let slot = slots[key] else { return nil }
        return remove(at: slot).value
    }

    mutating func removeExpired(now: Double) {
        while let first = deadlines.first, first.deadline <= now {
            _ = remove(at: first.slot)
        }
    }

    mutating func removeAll() {
        slots = [:]
        entries = []
        deadlines.removeAll()
    }

    /// Every entry with its deadline, soonest to expire first.
    func snapshot() -> [(entry: Entry, deadline: Double)] {
        deadlines.items
            .sorted { $0.deadline < $1.deadline }
            .map { (entries[$0.slot], $0.deadline) }
    }

    /// Removes the entry in `slot`, moving the last entry into the hole.
    private mutating func remove(at slot: Int) -> Entry {
        deadlines.remove(slot)
        let last = entries.count - 1
        if slot != last {
            entries.swapAt(slot, last)
            slots[entries[slot].key] = slot
            deadlines.renumber(last, to: slot)
        }
        let removed = entries.removeLast()
        slots.removeValue(forKey: removed.key)
        return removed
    }

    func invariantViolations() -> [String] {
        var problems: [String] = []
        if entries.count > capacity { problems.append("count \(entries.count) over capacity \(capacity)") }
        if slots.count != entries.count { problems.append("map \(slots.count) != entries \(entries.count)") }
        if deadlines.count != entries.count { problems.append("heap \(deadlines.count) != entries \(entries.count)") }
        for (slot, entry) in entries.enumerated() where slots[entry.key] != slot {
            problems.append("slot \(slot) is not where the map points")
        }
        if !deadlines.isValid() { problems.append("deadline heap is broken") }
        return problems
    }
}
