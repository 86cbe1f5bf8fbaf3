import StashCore

/// Holds every operation of one ``SharedCache`` to its timeout with a single watcher task,
/// instead of a timer per operation.
///
/// An operation starts at once on the caller's thread (`Task.immediate`: no hop to another
/// thread before the first statement is sent) in a task the caller can leave behind, because
/// a query on a connection whose server stopped answering does not react to cancellation.
/// The caller waits for whichever comes first: the operation's result, or the watcher
/// finding it overdue, which answers the error `expired` makes (and may start the statement's
/// cancellation on the server, ``ServerStatement``) and cancels the operation's task (a
/// connection lease still waiting in postgres-nio's pool is withdrawn).
///
/// Registering an operation is a lock, an insertion and a removal; nothing wakes another
/// thread. The watcher runs only while operations are in flight: it wakes every tenth of
/// the timeout, expires what is overdue and ends when nothing is left, so an operation is
/// answered at most a tenth of its timeout late.
final class DeadlineWatcher: Sendable {
    private struct Entry {
        let deadline: ContinuousClock.Instant
        let expire: @Sendable () -> Void
    }

    private struct State {
        var entries: [UInt64: Entry] = [:]
        var nextID: UInt64 = 0
        var watching = false
    }

    private let state = LockedValue(State())
    /// How often the watcher looks for overdue operations while some are in flight.
    let tick: Duration

    init(timeout: Duration) {
        tick = max(.milliseconds(2), timeout / 10)
    }

    /// Runs `operation` and answers its result, or throws the error `expired` answers once
    /// `timeout` has passed (within a tick), whichever comes first; the late operation's
    /// result is dropped, and its task cancelled when `expired` says so (`cancels`: a lease
    /// still waiting in the pool is withdrawn; a statement in flight is better ended by the
    /// server, since postgres-nio's own cancellation only stops waiting for it). `expired`
    /// is called at most once, by the watcher, and only when the deadline wins. Cancelling
    /// the caller answers `CancellationError` at once.
    func run<T: Sendable>(
        _ timeout: Duration, expired: @escaping @Sendable () -> (error: any Error, cancels: Bool),
        _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let race = DeadlineRace<T>()
        let work = Self.start {
            do { race.finish(.success(try await operation())) } catch { race.finish(.failure(error)) }
        }
        // Answered before its first suspension (a refused input, a synchronous failure).
        if let early = race.result { return try early.get() }
        let id = register(deadline: .now + timeout) {
            guard !race.isFinished else { return }
            let (error, cancels) = expired()
            if race.finish(.failure(error)), cancels { work.cancel() }
        }
        defer { unregister(id) }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { race.start($0) }
        } onCancel: {
            if race.finish(.failure(CancellationError())) { work.cancel() }
        }
    }

    /// Starts `body` at once on this thread where the standard library can (`Task.immediate`:
    /// Swift 6.2 or later, on Linux or Apple systems 26 and later), else as an ordinary task.
    private static func start(_ body: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        #if compiler(>=6.2)
        if #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *) {
            return Task.immediate { await body() }
        }
        #endif
        return Task { await body() }
    }

    private func register(deadline: ContinuousClock.Instant, expire: @escaping @Sendable () -> Void) -> UInt64 {
        let (id, startWatching) = state.withLock { state -> (UInt64, Bool) in
            let id = state.nextID
            state.nextID &+= 1
            state.entries[id] = Entry(deadline: deadline, expire: expire)
            guard !state.watching else { return (id, false) }
            state.watching = true
            return (id, true)
        }
        // Detached: the watcher outlives the caller that started it and must not carry its
        // priority or task-local values (tracing context, logger metadata).
        if startWatching { Task.detached(priority: .high) { await self.watch() } }
        return id
    }

    private func unregister(_ id: UInt64) {
        state.withLock { _ = $0.entries.removeValue(forKey: id) }
    }

    /// Wakes every tick while operations are in flight and expires the overdue ones; ends
    /// (under the lock, so that the next registration starts a new watcher) when none is left.
    private func watch() async {
        while true {
            try? await Task.sleep(for: tick)
            let now = ContinuousClock.Instant.now
            let (overdue, done) = state.withLock { state -> ([Entry], Bool) in
                let overdueIDs = state.entries.compactMap { $0.value.deadline <= now ? $0.key : nil }
                let overdue = overdueIDs.compactMap { state.entries.removeValue(forKey: $0) }
                if state.entries.isEmpty { state.watching = false }
                return (overdue, !state.watching)
            }
            for entry in overdue { entry.expire() }
            if done { return }
        }
    }
}

/// The continuation of one ``DeadlineWatcher/run(_:_:_:)`` call: resumed once, by whoever
/// finishes first.
private final class DeadlineRace<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var finished: Result<T, any Error>?
    }
    private let state = LockedValue(State())

    /// The result, when the race is already decided.
    var result: Result<T, any Error>? { state.withLock { $0.finished } }

    /// Whether the race is decided.
    var isFinished: Bool { state.withLock { $0.finished != nil } }

    func start(_ continuation: CheckedContinuation<T, any Error>) {
        let early = state.withLock { state -> Result<T, any Error>? in
            if let finished = state.finished { return finished }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(with: early) }
    }

    /// Resumes the caller with `result` unless it was already resumed; true when this call did.
    @discardableResult
    func finish(_ result: Result<T, any Error>) -> Bool {
        let (continuation, first) = state.withLock { state -> (CheckedContinuation<T, any Error>?, Bool) in
            guard state.finished == nil else { return (nil, false) }
            state.finished = result
            defer { state.continuation = nil }
            return (state.continuation, true)
        }
        continuation?.resume(with: result)
        return first
    }
}
