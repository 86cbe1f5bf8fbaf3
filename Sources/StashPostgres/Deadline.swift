import NIOCore
import PostgresNIO
import StashCore

/// Runs `operation` and answers its result, or throws `StashError(.unavailable)` once
/// `timeout` has passed, whichever comes first, without waiting for an operation that does
/// not react to cancellation (a query on a connection whose server stopped answering).
/// The late operation is cancelled and its result dropped.
///
/// The operation runs in a task of its own (the caller must be able to leave it behind);
/// the timer is a scheduled task on an event loop of postgres-nio's group, which costs a
/// heap insertion and removal, not a second Swift task and its wake-up on every call.
/// `what` is only evaluated when the deadline passes.
func withDeadline<T: Sendable>(
    _ timeout: Duration, _ what: @escaping @autoclosure @Sendable () -> String, _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    let race = DeadlineRace<T>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            race.start(continuation)
            let work = Task {
                do { race.finish(.success(try await operation())) } catch { race.finish(.failure(error)) }
            }
            let timer = deadlineEventLoops.any().scheduleTask(in: TimeAmount(timeout)) {
                if race.finish(.failure(StashError(.unavailable, "\(what()) timed out after \(timeout)"))) {
                    work.cancel()
                }
            }
            race.onFinish { timer.cancel() }
        }
    } onCancel: {
        race.finish(.failure(CancellationError()))
    }
}

/// Where deadline timers run: the event loops postgres-nio's clients use by default.
private let deadlineEventLoops: any EventLoopGroup = PostgresClient.defaultEventLoopGroup

/// The continuation of one ``withDeadline(_:_:_:)`` call: resumed once, by whoever finishes
/// first.
private final class DeadlineRace<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var finished: Result<T, any Error>?
        var cleanup: (@Sendable () -> Void)?
    }
    private let state = LockedValue(State())

    func start(_ continuation: CheckedContinuation<T, any Error>) {
        let early = state.withLock { state -> Result<T, any Error>? in
            if let finished = state.finished { return finished }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(with: early) }
    }

    func onFinish(_ cleanup: @escaping @Sendable () -> Void) {
        let done = state.withLock { state -> Bool in
            if state.finished != nil { return true }
            state.cleanup = cleanup
            return false
        }
        if done { cleanup() }
    }

    /// Resumes the caller with `result` unless it was already resumed; true when this call did.
    @discardableResult
    func finish(_ result: Result<T, any Error>) -> Bool {
        let (continuation, cleanup, first) = state.withLock { state -> (CheckedContinuation<T, any Error>?, (@Sendable () -> Void)?, Bool) in
            guard state.finished == nil else { return (nil, nil, false) }
            state.finished = result
            defer { state.continuation = nil; state.cleanup = nil }
            return (state.continuation, state.cleanup, true)
        }
        continuation?.resume(with: result)
        cleanup?()
        return first
    }
}
