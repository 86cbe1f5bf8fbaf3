import StashCore

/// Sends operations that callers start at the same time as one statement: group commit on
/// the client side.
///
/// A caller's operation runs at once while fewer than ``maximumRunning`` statements are in
/// flight. Past that it waits in a queue; when a statement finishes, the first caller in the
/// queue leads the next one, taking with it every operation queued behind it (up to
/// ``maximumBatch`` and ``maximumBytes``). So one caller alone pays one round trip as before,
/// and eight callers at once share two or three statements instead of making eight: fewer
/// round trips, commits and thread hand-overs, on the client and on the server.
///
/// The leader runs the batch in its own task, under the cache's timeout; the callers it took
/// get the batch's outcome. A caller never waits for more than the batch in flight ahead of
/// it and its own, each bounded by the timeout. Thread-safe.
package final class StatementBatcher<Item: Sendable, Output: Sendable>: Sendable {
    package typealias Outcomes = [Result<Output, any Error>]

    /// How a queued caller is woken: with its result, or to lead the next batch.
    private enum Wake: Sendable {
        case done(Result<Output, any Error>)
        case lead
    }

    private struct Waiter {
        let item: Item
        let bytes: Int
        let continuation: CheckedContinuation<Wake, Never>
    }

    private struct State {
        var running = 0
        var queue: [Waiter] = []
        var head = 0
        var largestBatch = 0

        var queued: Int { queue.count - head }

        mutating func popFirst() -> Waiter? {
            guard head < queue.count else { return nil }
            defer {
                head += 1
                if head == queue.count {
                    queue.removeAll(keepingCapacity: true)
                    head = 0
                }
            }
            return queue[head]
        }
    }

    private let state = LockedValue(State())
    /// Statements in flight at once before callers queue.
    package let maximumRunning: Int
    /// The most operations in one statement.
    package let maximumBatch: Int
    /// The most bytes of values in one statement (a larger operation goes alone).
    package let maximumBytes: Int

    /// Callers waiting for a statement to finish (for tests).
    package var queued: Int { state.withLock { $0.queued } }
    /// The most operations sent in one statement so far (for tests).
    package var largestBatch: Int { state.withLock { $0.largestBatch } }

    package init(maximumRunning: Int, maximumBatch: Int, maximumBytes: Int) {
        self.maximumRunning = max(1, maximumRunning)
        self.maximumBatch = max(1, maximumBatch)
        self.maximumBytes = maximumBytes
    }

    /// Runs `item`, alone or in a batch, and answers its outcome. `execute` runs a batch and
    /// answers one outcome per item, in order; every caller of one batcher passes the same.
    package func run(_ item: Item, bytes: Int, _ execute: @Sendable ([Item]) async -> Outcomes) async throws -> Output {
        let leadsNow = state.withLock { state -> Bool in
            guard state.running < maximumRunning, state.queued == 0 else { return false }
            state.running += 1
            return true
        }
        if leadsNow { return try await lead(item, bytes: bytes, execute) }
        let wake = await withCheckedContinuation { continuation in
            // Decided again under the lock that queues: the statements seen running may all
            // have finished since, and then no one would be left to wake this caller.
            let leadsAfterAll = state.withLock { state -> Bool in
                if state.running < maximumRunning, state.queued == 0 {
                    state.running += 1
                    return true
                }
                state.queue.append(Waiter(item: item, bytes: bytes, continuation: continuation))
                return false
            }
            if leadsAfterAll { continuation.resume(returning: .lead) }
        }
        switch wake {
        case .done(let result): return try result.get()
        case .lead: return try await lead(item, bytes: bytes, execute)
        }
    }

    /// Runs `item` with what is queued behind it, answers the callers taken, then hands the
    /// lead to the next caller in the queue (or frees the slot).
    private func lead(_ item: Item, bytes: Int, _ execute: @Sendable ([Item]) async -> Outcomes) async throws -> Output {
        let followers = state.withLock { state -> [Waiter] in
            var taken: [Waiter] = []
            var total = bytes
            while taken.count + 1 < maximumBatch, state.head < state.queue.count {
                let next = state.queue[state.head]
                guard total + next.bytes <= maximumBytes else { break }
                total += next.bytes
                taken.append(next)
                _ = state.popFirst()
            }
            state.largestBatch = max(state.largestBatch, taken.count + 1)
            return taken
        }
        let outcomes = await execute([item] + followers.map(\.item))
        for (index, follower) in followers.enumerated() {
            follower.continuation.resume(returning: .done(outcomes[index + 1]))
        }
        let next = state.withLock { state -> Waiter? in
            if let next = state.popFirst() { return next }
            state.running -= 1
            return nil
        }
        next?.continuation.resume(returning: .lead)
        return try outcomes[0].get()
    }
}
