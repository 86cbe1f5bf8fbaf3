import StashCore

/// Work an ``HTTPCache`` runs in tasks of its own, by storage key, so that its caller does
/// not wait: the writes its synchronous API starts on shared storage (``run(after:_:)``:
/// one URL's in the order they started, different URLs side by side) and its
/// stale-while-revalidate revalidations (``runUnlessRunning(_:_:)``: at most one per variant at
/// a time). ``wait()`` waits for those started before it, ``cancel()`` cancels every one
/// still running, in either mode (a chain's earlier tasks too), and refuses later ones.
/// Thread-safe.
///
/// ```swift
/// let revalidations = BackgroundTasks()
/// revalidations.runUnlessRunning(key.storageKey) { await revalidate() }
/// await revalidations.wait()
/// ```
final class BackgroundTasks: Sendable {
    private struct State {
        /// The last task of each key still running, with the generation that tells it from
        /// a later task of the same key.
        var last: [String: (generation: UInt64, task: Task<Void, Never>)] = [:]
        /// Every task still running, by generation: a chain of ``run(after:_:)`` has
        /// earlier ones than `last`, which awaiting the last one does not cancel.
        var running: [UInt64: Task<Void, Never>] = [:]
        var nextGeneration: UInt64 = 0
        var isCancelled = false
    }

    private let state = LockedValue(State())

    /// Runs `work` once the task of `key` still running (if any) has ended: one key's
    /// tasks run in the order they were asked for.
    func run(after key: String, _ work: @escaping @Sendable () async -> Void) {
        _ = start(key, skipsWhenRunning: false, work)
    }

    /// Runs `work` unless a task of `key` is still running (either mode's); whether it
    /// started.
    @discardableResult
    func runUnlessRunning(_ key: String, _ work: @escaping @Sendable () async -> Void) -> Bool {
        start(key, skipsWhenRunning: true, work)
    }

    /// Waits for the tasks started before this call (and those they wait for).
    func wait() async {
        for (_, task) in state.withLock({ $0.last.values }) { await task.value }
    }

    /// Cancels every running task, a chain's waiting ones included (each stops at its next
    /// suspension point that checks: an origin request in flight is abandoned), and refuses
    /// the tasks asked for later.
    func cancel() {
        let running = state.withLock { state in
            state.isCancelled = true
            return Array(state.running.values)
        }
        for task in running { task.cancel() }
    }

    /// Whether any task is still running (for tests).
    var isRunning: Bool { state.withLock { !$0.last.isEmpty } }

    private func start(_ key: String, skipsWhenRunning: Bool, _ work: @escaping @Sendable () async -> Void) -> Bool {
        state.withLock { state in
            let previous = state.last[key]?.task
            guard !state.isCancelled, previous == nil || !skipsWhenRunning else { return false }
            let generation = state.nextGeneration
            state.nextGeneration &+= 1
            // The task removes itself under the lock held here, so it cannot do so before
            // it is recorded.
            let task = Task {
                await previous?.value
                await work()
                self.state.withLock { state in
                    state.running[generation] = nil
                    if state.last[key]?.generation == generation { state.last[key] = nil }
                }
            }
            state.last[key] = (generation, task)
            state.running[generation] = task
            return true
        }
    }
}
