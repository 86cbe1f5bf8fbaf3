import StashCore
import StashPostgres
import Testing

/// The batching of concurrent operations, on its own (no server): every caller gets its
/// own outcome, batches keep their limits, and no more statements run at once than allowed.
struct StatementBatcherTests {
    struct Odd: Error, Equatable { let item: Int }

    /// Counts what the batches did.
    final class Record: Sendable {
        private struct Counts {
            var running = 0
            var mostRunning = 0
            var sizes: [Int] = []
            var byteTotals: [Int] = []
        }
        private let counts = LockedValue(Counts())

        var mostRunning: Int { counts.withLock { $0.mostRunning } }
        var sizes: [Int] { counts.withLock { $0.sizes } }
        var byteTotals: [Int] { counts.withLock { $0.byteTotals } }

        func begin(_ items: [Int], bytes: Int) {
            counts.withLock {
                $0.running += 1
                $0.mostRunning = max($0.mostRunning, $0.running)
                $0.sizes.append(items.count)
                $0.byteTotals.append(bytes)
            }
        }

        func end() { counts.withLock { $0.running -= 1 } }
    }

    /// Two statements are held open until every other caller has queued behind them; the
    /// queue then drains in batches of at most 64, each caller answered with its own
    /// outcome (a value for even items, an error naming the item for odd ones).
    @Test func everyCallerGetsItsOwnOutcomeInBatchesWithinTheLimits() async throws {
        let batcher = StatementBatcher<Int, Int>(maximumRunning: 2, maximumBatch: 64, maximumBytes: .max)
        let record = Record()
        let gate = Gate()
        let callers = 200
        let execute: @Sendable ([Int]) async -> StatementBatcher<Int, Int>.Outcomes = { items in
            record.begin(items, bytes: 0)
            await gate.wait()
            defer { record.end() }
            return items.map { $0.isMultiple(of: 2) ? .success($0 * 10) : .failure(Odd(item: $0)) }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for item in 0..<callers {
                group.addTask {
                    do {
                        let value = try await batcher.run(item, bytes: 0, execute)
                        #expect(item.isMultiple(of: 2) && value == item * 10, "caller \(item) got \(value)")
                    } catch let error as Odd {
                        #expect(error == Odd(item: item), "caller \(item) got the error of \(error.item)")
                    }
                }
            }
            // Every caller is in one of the two statements held open or queued behind them
            // before anything finishes (a leader may take callers that queued before it began).
            let ready = await eventually { record.sizes.reduce(0, +) + batcher.queued == callers }
            await gate.open()
            #expect(ready, "the callers never all queued")
            try await group.waitForAll()
        }
        #expect(record.sizes.reduce(0, +) == callers)
        #expect(record.sizes.allSatisfy { $0 <= 64 })
        #expect(record.mostRunning <= 2)
        #expect(batcher.largestBatch == 64)
        #expect(batcher.queued == 0)
    }

    /// Callers arriving while the last statement ends are never left waiting: eight tasks
    /// run 40,000 operations through one slot with statements that end at once, so callers
    /// keep deciding to queue just as the running statement finishes. A lost wake-up hangs
    /// a caller, which the watchdog turns into a failure.
    @Test func noCallerIsLeftWaitingWhenTheRunningStatementEnds() async throws {
        let batcher = StatementBatcher<Int, Int>(maximumRunning: 1, maximumBatch: 8, maximumBytes: .max)
        let execute: @Sendable ([Int]) async -> StatementBatcher<Int, Int>.Outcomes = { items in
            await Task.yield()
            return items.map { .success($0) }
        }
        // The callers run in a task of their own, so that a caller left waiting (whose
        // continuation nothing resumes) fails the test instead of hanging it.
        let done = LockedValue(0)
        let callers = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for task in 0..<8 {
                    group.addTask {
                        for operation in 0..<5_000 {
                            let item = task * 5_000 + operation
                            let value = try await batcher.run(item, bytes: 0, execute)
                            #expect(value == item)
                        }
                        done.withLock { $0 += 1 }
                    }
                }
                try await group.waitForAll()
            }
        }
        let watchdog = ContinuousClock.now + .seconds(120)
        while done.withLock({ $0 }) < 8, ContinuousClock.now < watchdog {
            try await Task.sleep(for: .milliseconds(10))
        }
        let finished = done.withLock { $0 } == 8
        if finished { try await callers.value }
        #expect(finished, "a caller was left waiting: 40,000 operations did not finish in two minutes")
        #expect(batcher.queued == 0)
    }

    /// A batch stops before the byte limit; an operation larger than the limit goes alone.
    @Test func batchesStayUnderTheByteLimit() async throws {
        let batcher = StatementBatcher<Int, Int>(maximumRunning: 1, maximumBatch: 64, maximumBytes: 1_000)
        let record = Record()
        let gate = Gate()
        let sizes = [300, 300, 300, 300, 2_000, 300, 300]
        let execute: @Sendable ([Int]) async -> StatementBatcher<Int, Int>.Outcomes = { items in
            record.begin(items, bytes: items.reduce(0) { $0 + sizes[$1] })
            await gate.wait()
            defer { record.end() }
            return items.map { .success($0) }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for item in sizes.indices {
                group.addTask {
                    let value = try await batcher.run(item, bytes: sizes[item], execute)
                    #expect(value == item)
                }
            }
            let ready = await eventually { record.sizes.reduce(0, +) + batcher.queued == sizes.count }
            await gate.open()
            #expect(ready, "the callers never all queued")
            try await group.waitForAll()
        }
        #expect(record.sizes.reduce(0, +) == sizes.count)
        for (count, bytes) in zip(record.sizes, record.byteTotals) where count > 1 {
            #expect(bytes <= 1_000)
        }
        #expect(record.byteTotals.contains(2_000))
        #expect(record.mostRunning == 1)
    }
}

/// Whether `condition` holds within a minute, checked between yields: a watchdog, so that
/// a batcher that never queues a caller fails the test instead of hanging it.
func eventually(_ condition: () -> Bool) async -> Bool {
    let limit = ContinuousClock.now + .seconds(60)
    while !condition() {
        guard ContinuousClock.now < limit else { return false }
        await Task.yield()
    }
    return true
}

/// Holds callers until opened.
actor Gate {
    private var isOpen = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiting.append($0) }
    }

    func open() {
        isOpen = true
        for continuation in waiting { continuation.resume() }
        waiting.removeAll()
    }
}
