public import Foundation
public import StashCore

/// A fixed-capacity first-in first-out queue: appending to a full queue drops the oldest
/// element (Kache's queue). Elements may also expire a fixed time after they were appended.
///
/// ```swift
/// let recentSearches = BoundedQueue<String>(countLimit: 20)
/// recentSearches.append("swift caches")
/// let shown = recentSearches.elements          // oldest first
/// try recentSearches.save(to: url)             // at launch: try BoundedQueue(contentsOf: url, countLimit: 20)
/// ```
///
/// - Appending and removing are O(1): a ring buffer, allocated once at its capacity.
/// - Thread-safe: one lock guards the queue, and no user code runs under it.
/// - Memory only until ``save(to:durability:)``, which writes the whole queue atomically.
public final class BoundedQueue<Element: Sendable>: Sendable {
    /// One element and when it was appended.
    struct Item {
        var element: Element
        var appended: Double
    }

    /// The most elements the queue holds.
    public let countLimit: Int
    /// Seconds after its append at which an element expires; `nil` for never.
    public let ageLimit: TimeInterval?

    let state: LockedValue<RingBuffer<Item>>
    let clock: any StashClock

    /// Creates an empty queue.
    ///
    /// ```swift
    /// let events = BoundedQueue<Event>(countLimit: 1_000, ageLimit: 24 * 3600)
    /// ```
    ///
    /// - parameters:
    ///   - countLimit: The most elements held; 0 holds nothing.
    ///   - ageLimit: Seconds after which an element expires; `nil` (the default) for never.
    ///   - clock: Where expiry reads the time; tests pass a `ManualClock`.
    public init(countLimit: Int, ageLimit: TimeInterval? = nil, clock: any StashClock = SystemClock()) {
        self.countLimit = max(0, countLimit)
        self.ageLimit = ageLimit
        self.clock = clock
        state = LockedValue(RingBuffer(capacity: countLimit))
    }

    var now: Double { clock.now.timeIntervalSinceReferenceDate }

    /// Appends `element` as the newest; when the queue is full, the oldest element leaves and
    /// is returned.
    ///
    /// ```swift
    /// if let dropped = queue.append(event) { archive(dropped) }
    /// ```
    @discardableResult
    public func append(_ element: Element) -> Element? {
        let now = now
        return state.withLock { buffer in
            removeExpired(from: &buffer, now: now)
            return buffer.append(Item(element: element, appended: now))?.element
        }
    }

    /// Removes and returns the oldest live element.
    ///
    /// ```swift
    /// while let event = queue.popFirst() { upload(event) }
    /// ```
    @discardableResult
    public func popFirst() -> Element? {
        let now = now
        return state.withLock { buffer in
            removeExpired(from: &buffer, now: now)
            return buffer.removeFirst()?.element
        }
    }

    /// The oldest live element, left in place.
    ///
    /// ```swift
    /// let next = queue.first
    /// ```
    public var first: Element? {
        live { $0.first?.element }
    }

    /// The number of live elements.
    ///
    /// ```swift
    /// print("\(queue.count) of \(queue.countLimit)")
    /// ```
    public var count: Int {
        live(\.count)
    }

    /// Whether the queue holds no live element.
    ///
    /// ```swift
    /// if queue.isEmpty { return }
    /// ```
    public var isEmpty: Bool {
        live(\.isEmpty)
    }

    /// The live elements, oldest first.
    ///
    /// ```swift
    /// let recent = queue.elements.reversed() // newest first
    /// ```
    public var elements: [Element] {
        live { $0.elements.map(\.element) }
    }

    /// Removes every element.
    ///
    /// ```swift
    /// queue.removeAll()
    /// ```
    public func removeAll() {
        state.withLock { $0.removeAll() }
    }

    /// Runs `body` on the buffer after dropping expired elements.
    func live<T>(_ body: (RingBuffer<Item>) -> T) -> T {
        let now = now
        return state.withLock { buffer in
            removeExpired(from: &buffer, now: now)
            return body(buffer)
        }
    }

    /// Drops expired elements: they are all at the front, the queue being in append order.
    func removeExpired(from buffer: inout RingBuffer<Item>, now: Double) {
        guard let ageLimit else { return }
        while let first = buffer.first, !(first.appended + ageLimit > now) {
            _ = buffer.removeFirst()
        }
    }
}
