import StashCore

/// What the server is doing for one operation of a ``SharedCache``, so that a caller who
/// gives up can have the server give up too.
///
/// The operation calls ``begin(backend:)`` once its connection is configured and before it
/// sends its first statement, and ``end()`` when its statements have answered, before the
/// connection goes back to the pool. The deadline watcher calls ``abandon(cancel:)`` when
/// the caller's timeout passes first: a statement in flight is then cancelled on the server
/// (`pg_cancel_backend` on the connection's backend, sent over another connection), and
/// ``end()`` waits for that cancellation to be sent. So a cancellation can only reach the
/// statements of the operation that asked for it, never the next lessee's: a cancel
/// request that arrives while the backend is idle is discarded by PostgreSQL.
///
/// Thread-safe: the operation and the watcher call it from different threads.
final class ServerStatement: Sendable {
    private struct State {
        var backend: Int32?
        var abandoned = false
        var ended = false
        var cancelling: Task<Void, Never>?
    }

    private let state = LockedValue(State())

    /// Records that the operation is about to send its statements on the connection of
    /// backend `pid`; false when the caller already gave up, and then nothing may be sent.
    func begin(backend pid: Int32) -> Bool {
        state.withLock { state in
            guard !state.abandoned else { return false }
            state.backend = pid
            return true
        }
    }

    /// Whether the operation's statements were sent (``begin(backend:)`` returned true).
    var began: Bool { state.withLock { $0.backend != nil } }

    /// The caller gave up: when a statement is in flight, `cancel` is started with its
    /// backend's process ID. Answers whether a statement was in flight (it may still
    /// complete on the server, or may have completed already).
    @discardableResult
    func abandon(cancel: @escaping @Sendable (Int32) async -> Void) -> Bool {
        state.withLock { state in
            state.abandoned = true
            guard let backend = state.backend, !state.ended else { return state.backend != nil }
            // Started under the lock, so that `end()` either sees it or runs before it.
            state.cancelling = Task { await cancel(backend) }
            return true
        }
    }

    /// The operation's statements answered (or failed): waits for a cancellation that
    /// ``abandon(cancel:)`` started, so that it is sent before the connection is reused.
    func end() async {
        let cancelling = state.withLock { state -> Task<Void, Never>? in
            state.ended = true
            return state.cancelling
        }
        await cancelling?.value
    }
}
