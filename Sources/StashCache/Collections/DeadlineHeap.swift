/// A min-heap of deadlines addressed by slot number: the engine behind expiry in
/// ``MemoryCache`` and eviction order in ``ExpiringPool``.
///
/// Slots are the owner's storage indexes. The heap remembers where each slot sits, so that
/// changing or removing one slot's deadline is O(log n) without a search. Only slots with a
/// finite deadline are stored: a cache whose entries never expire keeps this heap empty and
/// pays nothing for it.
@usableFromInline
struct DeadlineHeap: Sendable {
    @usableFromInline
    struct Item: Sendable {
        @usableFromInline var deadline: Double
        @usableFromInline var slot: Int

        @inlinable
        init(deadline: Double, slot: Int) {
            self.deadline = deadline
            self.slot = slot
        }
    }

    /// The heap, smallest deadline first.
    @usableFromInline var items: ContiguousArray<Item> = []
    /// For each slot, its position in `items`, or -1 when it has no deadline.
    @usableFromInline var positions: ContiguousArray<Int> = []

    @inlinable
    init() {}

    @inlinable
    var isEmpty: Bool { items.isEmpty }

    @inlinable
    var count: Int { items.count }

    /// The slot that expires first, with its deadline.
    @inlinable
    var first: Item? { items.first }

    /// The deadline of `slot`, or infinity when it has none.
    @inlinable
    func deadline(of slot: Int) -> Double {
        guard slot < positions.count else { return .infinity }
        let position = positions[slot]
        return position < 0 ? .infinity : items[position].deadline
    }

    /// Gives `slot` a deadline; an infinite one removes it from the heap.
    @inlinable
    mutating func setDeadline(_ deadline: Double, for slot: Int) {
        guard deadline < .infinity else { return remove(slot) }
        if slot >= positions.count {
            positions.append(contentsOf: repeatElement(-1, count: slot + 1 - positions.count))
        }
        let position = positions[slot]
        if position < 0 {
            items.append(Item(deadline: deadline, slot: slot))
            positions[slot] = items.count - 1
            siftUp(items.count - 1)
        } else {
            let old = items[position].deadline
            items[position].deadline = deadline
            if deadline < old { siftUp(position) } else { siftDown(position) }
        }
    }

    /// Forgets `slot`'s deadline, if it has one.
    @inlinable
    mutating func remove(_ slot: Int) {
        guard slot < positions.count else { return }
        let position = positions[slot]
        guard position >= 0 else { return }
        positions[slot] = -1
        let last = items.count - 1
        if position != last {
            items[position] = items[last]
            positions[items[position].slot] = position
            items.removeLast()
            siftDown(position)
            siftUp(position)
        } else {
            items.removeLast()
        }
    }

    /// Records that the owner moved the entry in slot `old` to slot `new` (which has no
    /// deadline of its own any more).
    @inlinable
    mutating func renumber(_ old: Int, to new: Int) {
        guard old < positions.count, positions[old] >= 0 else { return }
        let position = positions[old]
        positions[old] = -1
        if new >= positions.count {
            positions.append(contentsOf: repeatElement(-1, count: new + 1 - positions.count))
        }
        positions[new] = position
        items[position].slot = new
    }

    /// Releases the position records of slots at or past `count`, which have no deadline.
    mutating func shrink(to count: Int) {
        guard positions.count > count else { return }
        positions = ContiguousArray(positions[..<count])
    }

    @inlinable
    mutating func removeAll() {
        items.removeAll()
        positions.removeAll()
    }

    @inlinable
    mutating func siftUp(_ start: Int) {
        var child = start
        let item = items[child]
        while child > 0 {
            let parent = (child - 1) / 2
            guard item.deadline < items[parent].deadline else { break }
            items[child] = items[parent]
            positions[items[child].slot] = child
            child = parent
        }
        items[child] = item
        positions[item.slot] = child
    }

    @inlinable
    mutating func siftDown(_ start: Int) {
        var parent = start
        let count = items.count
        guard parent < count else { return }
        let item = items[parent]
        while true {
            var smallest = 2 * parent + 1
            guard smallest < count else { break }
            if smallest + 1 < count, items[smallest + 1].deadline < items[smallest].deadline {
                smallest += 1
            }
            guard items[smallest].deadline < item.deadline else { break }
            items[parent] = items[smallest]
            positions[items[parent].slot] = parent
            parent = smallest
        }
        items[parent] = item
        positions[item.slot] = parent
    }

    /// Whether the heap order holds and every slot's recorded position is right.
    func isValid() -> Bool {
        for (position, item) in items.enumerated() {
            if positions[item.slot] != position { return false }
            if position > 0, items[(position - 1) / 2].deadline > item.deadline { return false }
        }
        return positions.filter { $0 >= 0 }.count == items.count
    }
}
