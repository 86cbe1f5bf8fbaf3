/// The in-memory index of a suite: every live key with its decoded value and where its
/// record lies (``PreferencesEngine/Entry``).
///
/// An open-addressing hash table written for the read path: a lookup hashes the key's
/// UTF-8 bytes once (``KeyHash``, which also tells whether the key is already in its stored
/// form), probes an array of slots linearly (each slot holds the upper half of its key's
/// hash and the position of its key and entry, so a probe rarely compares strings), and
/// compares one key. Keys, entries and hashes lie in one dense array, in the order they were
/// first set (a removal moves the last one into the hole), so that growing rehashes without
/// hashing a key again; a removal shifts the following slots back,
/// so there are no tombstones and a lookup stops at the first empty slot. The slots are at
/// most half full.
///
/// A value type (its arrays are copied on write), used under the engine's lock.
struct KeyIndex {
    /// One live key (in its stored form), its entry and its ``KeyHash``.
    struct Element {
        var key: String
        var entry: PreferencesEngine.Entry
        var hash: UInt64
    }

    /// The live keys and their entries.
    private(set) var elements: [Element] = []
    /// 0 for an empty slot, else the upper 32 bits of the key's hash, then its position + 1.
    private var slots: [UInt64] = []
    /// What ``prefetch(_:)`` loaded, unused.
    private var prefetched: UInt64 = 0

    init() {}

    /// An index with room for `capacity` keys before it grows.
    init(capacity: Int) {
        reserveCapacity(capacity)
    }

    var count: Int { elements.count }
    var isEmpty: Bool { elements.isEmpty }
    /// The live keys.
    var keys: [String] { elements.map(\.key) }

    /// Makes room for `capacity` keys without growing.
    mutating func reserveCapacity(_ capacity: Int) {
        elements.reserveCapacity(capacity)
        if Self.slotCount(for: capacity) > slots.count { rehash(slotCount: Self.slotCount(for: capacity)) }
    }

    /// The entry of `key`, which must be in its stored form.
    subscript(key: String) -> PreferencesEngine.Entry? {
        guard let position = position(of: key, hash: KeyHash.hash(key).hash) else { return nil }
        return elements[position].entry
    }

    /// The entry of `key`, whose ``KeyHash`` is `hash`.
    @inline(__always)
    func entry(_ key: String, hash: UInt64) -> PreferencesEngine.Entry? {
        guard let position = position(of: key, hash: hash) else { return nil }
        return elements[position].entry
    }

    /// Where `key`'s entry is in ``entries``, or `nil`.
    @inline(__always)
    func position(of key: String, hash: UInt64) -> Int? {
        guard !slots.isEmpty else { return nil }
        let mask = slots.count - 1
        let tag = hash >> 32
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let content = slots[slot]
            if content == 0 { return nil }
            if content >> 32 == tag {
                let position = Int(truncatingIfNeeded: content & 0xFFFF_FFFF) - 1
                if elements[position].key == key { return position }
            }
            slot = (slot + 1) & mask
        }
    }

    /// Loads the first slot each of `hashes` probes, without using what it holds: when a
    /// batch of keys is about to be set (an open applies a group of records at once), their
    /// slots' cache misses overlap here instead of costing one after another in
    /// ``updateValue(_:forKey:hash:)`` (a miss per new key was a tenth of an open).
    @inline(__always)
    mutating func prefetch(_ hashes: [UInt64]) {
        guard !slots.isEmpty else { return }
        let mask = slots.count - 1
        var loaded: UInt64 = 0
        slots.withUnsafeBufferPointer { slots in
            for hash in hashes { loaded |= slots[Int(truncatingIfNeeded: hash) & mask] }
        }
        // Kept, so that the loads are not optimized away.
        prefetched = loaded
    }

    /// Sets the entry of `key` (in its stored form); returns the one it replaces.
    @discardableResult
    mutating func updateValue(_ entry: PreferencesEngine.Entry, forKey key: String) -> PreferencesEngine.Entry? {
        updateValue(entry, forKey: key, hash: KeyHash.hash(key).hash)
    }

    /// ``updateValue(_:forKey:)`` for a key whose ``KeyHash`` is `hash`: one probe, which
    /// either finds the key or stops at the empty slot a new key takes.
    @discardableResult
    mutating func updateValue(_ entry: PreferencesEngine.Entry, forKey key: String, hash: UInt64) -> PreferencesEngine.Entry? {
        // Grown first, so that the probe's empty slot is the one the key takes (at most half
        // full: the test is ``slotCount(for:)``'s without its loop).
        if 2 * (elements.count + 1) > slots.count { rehash(slotCount: Self.slotCount(for: elements.count + 1)) }
        let mask = slots.count - 1
        let tag = hash >> 32
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let content = slots[slot]
            if content == 0 { break }
            if content >> 32 == tag {
                let position = Int(truncatingIfNeeded: content & 0xFFFF_FFFF) - 1
                if elements[position].key == key {
                    let old = elements[position].entry
                    elements[position].entry = entry
                    return old
                }
            }
            slot = (slot + 1) & mask
        }
        elements.append(Element(key: key, entry: entry, hash: hash))
        slots[slot] = Self.slotContent(hash: hash, position: elements.count - 1)
        return nil
    }

    /// Replaces the entry at `position` of ``elements``, whose key stays: how a compaction
    /// moves every entry without hashing a key again.
    mutating func setEntry(_ entry: PreferencesEngine.Entry, at position: Int) {
        elements[position].entry = entry
    }

    /// Removes `key` (in its stored form); returns its entry.
    @discardableResult
    mutating func removeValue(forKey key: String) -> PreferencesEngine.Entry? {
        let hash = KeyHash.hash(key).hash
        guard let position = position(of: key, hash: hash) else { return nil }
        let old = elements[position].entry
        clearSlot(slotHolding(position, hash: hash))
        let last = elements.count - 1
        if position != last {
            // The last key moves into the hole; its slot follows it.
            let moved = slotHolding(last, hash: elements[last].hash)
            elements.swapAt(position, last)
            slots[moved] = Self.slotContent(hash: elements[position].hash, position: position)
        }
        elements.removeLast()
        return old
    }

    /// Removes every key.
    mutating func removeAll(keepingCapacity: Bool) {
        elements.removeAll(keepingCapacity: keepingCapacity)
        if keepingCapacity {
            for slot in slots.indices { slots[slot] = 0 }
        } else {
            slots = []
        }
    }

    // MARK: Slots

    /// The slot count for `count` keys: a power of two, at least twice `count`.
    private static func slotCount(for count: Int) -> Int {
        guard count > 0 else { return 0 }
        var slots = 8
        while slots < 2 * count { slots <<= 1 }
        return slots
    }

    @inline(__always)
    private static func slotContent(hash: UInt64, position: Int) -> UInt64 {
        (hash >> 32) << 32 | UInt64(position + 1)
    }

    /// The first empty slot on `hash`'s probe sequence.
    private func freeSlot(for hash: UInt64) -> Int {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        return slot
    }

    /// The slot that points at `position`, whose key's hash is `hash`.
    private func slotHolding(_ position: Int, hash: UInt64) -> Int {
        let mask = slots.count - 1
        let content = Self.slotContent(hash: hash, position: position)
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] != content { slot = (slot + 1) & mask }
        return slot
    }

    /// Empties `slot`, then moves back every following slot of its run that may sit
    /// earlier (its home is not between the hole and itself), so that every key stays
    /// reachable from its home without tombstones.
    private mutating func clearSlot(_ slot: Int) {
        let mask = slots.count - 1
        var hole = slot
        var next = (slot + 1) & mask
        while slots[next] != 0 {
            let position = Int(truncatingIfNeeded: slots[next] & 0xFFFF_FFFF) - 1
            let home = Int(truncatingIfNeeded: elements[position].hash) & mask
            // The distance from home to `next` against the distance from the hole to `next`.
            if (next - home) & mask >= (next - hole) & mask {
                slots[hole] = slots[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        slots[hole] = 0
    }

    private mutating func rehash(slotCount: Int) {
        slots = Array(repeating: 0, count: slotCount)
        for position in elements.indices {
            let hash = elements[position].hash
            slots[freeSlot(for: hash)] = Self.slotContent(hash: hash, position: position)
        }
    }
}
