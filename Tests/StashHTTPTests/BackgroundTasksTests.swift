import StashCore
@testable import StashHTTP
import Testing

/// The tasks an `HTTPCache` runs on its own: `cancel()` reaches every one still running.
struct BackgroundTasksTests {
    /// A chain of one key's tasks (`run(after:)`) is cancelled whole: the task running now,
    /// not only the last one asked for (which only waits for it), so `wait()` then returns
    /// without the running one going on to its end.
    @Test func cancelReachesEveryTaskOfAChain() async throws {
        let tasks = BackgroundTasks()
        let cancelled = LockedValue(false)
        let (started, starting) = AsyncStream.makeStream(of: Void.self)
        tasks.run(after: "key") {
            await withTaskCancellationHandler {
                starting.yield()
                try? await Task.sleep(for: .seconds(3_600))
            } onCancel: {
                cancelled.withLock { $0 = true }
            }
        }
        tasks.run(after: "key") {}
        var iterator = started.makeAsyncIterator()
        _ = await iterator.next()
        tasks.cancel()
        // The handler runs inside `cancel()` for a task that is running.
        try #require(cancelled.withLock { $0 }, "the chain's running task was not cancelled")
        await tasks.wait()
        #expect(!tasks.isRunning)
        #expect(!tasks.runUnlessRunning("other") {}, "a cancelled registry started a task")
    }
}
