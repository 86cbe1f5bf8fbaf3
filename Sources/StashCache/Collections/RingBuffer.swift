/// A fixed-capacity first-in first-out buffer: the engine of ``BoundedQueue``. Appending to a full
/// buffer overwrites the oldest element. Not thread-safe.
struct RingBuffer<Element> {
    private var storage: ContiguousArray<Element?>
    /// The position of the oldest element.
    private var head = 0
    private(set) var count = 0

    init(capacity: Int) {
        storage = ContiguousArray(repeating: nil, count: max(0, capacity))
    }

    var capacity: Int { storage.count }

    var isEmpty: Bool { count == 0 }

    var first: Element? { count == 0 ? nil : storage[head] }

    /// Appends `element`, returning the oldest one when it had to make room (or `element`
    /// itself when the capacity is 0).
    mutating func append(_ element: Element) -> Element? {
        guard capacity > 0 else { return element }
        if count == capacity {
            let dropped = storage[head]
            storage[head] = element
            head = (head + 1) % capacity
            return dropped
        }
        storage[(head + count) % capacity] = element
        count += 1
        return nil
    }

    mutating func removeFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = storage[head]
        storage[head] = nil
        head = (head + 1) % capacity
        count -= 1
        return element
    }

    mutating func removeAll() {
        for index in storage.indices { storage[index] = nil }
        head = 0
        count = 0
    }

    /// The elements, oldest first.
    var elements: [Element] {
        (0..<count).compactMap { storage[(head + $0) % capacity] }
    }
}
