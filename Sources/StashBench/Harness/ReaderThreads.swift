import Foundation

/// Runs `body(thread)` on `count` threads of their own (not a pool's: a pool on a 2-core
/// machine runs two at a time), started together, and answers the sum of what they return.
/// The concurrent-reader cases call it with `body` reading a store from every thread at once.
func onThreads(_ count: Int, _ body: @escaping (Int) -> Int) -> Int {
    let shared = ThreadResults(count: count, body: body)
    let done = DispatchGroup()
    let start = DispatchSemaphore(value: 0)
    for index in 0..<count {
        done.enter()
        let thread = Thread {
            start.wait()
            shared.record(index, shared.body(index))
            done.leave()
        }
        thread.start()
    }
    for _ in 0..<count { start.signal() }
    done.wait()
    return shared.total
}

/// What the threads of ``onThreads(_:_:)`` share: the body they run (each thread calls it
/// with its own index, and the stores it reads are thread-safe) and their results.
private final class ThreadResults: @unchecked Sendable {
    let body: (Int) -> Int
    private let lock = NSLock()
    private var results: [Int]

    init(count: Int, body: @escaping (Int) -> Int) {
        self.body = body
        results = Array(repeating: 0, count: count)
    }

    func record(_ index: Int, _ value: Int) {
        lock.lock()
        results[index] = value
        lock.unlock()
    }

    var total: Int {
        lock.lock()
        defer { lock.unlock() }
        return results.reduce(0, +)
    }
}
