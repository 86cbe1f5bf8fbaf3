import NIOCore
import PostgresNIO
import StashCore

/// Runs a task's work on one NIO event loop: the loop of the connection an operation uses,
/// so that sending a statement and resuming with its answer happen on the thread that owns
/// the socket instead of hopping between that thread and the concurrency pool.
///
/// A statement's round trip from the pool costs about three thread hand-overs, each waking
/// a thread: the write goes to the event loop, the answer comes back to the pool, and
/// reading its rows asks the loop again. On the connection's own loop the write is made
/// at once and the answer resumes the task in the loop's own queue; only entering and
/// leaving the loop cross threads. The work done there is short and never blocks: binding
/// values, writing, and copying the answer's bytes.
final class EventLoopExecutor: TaskExecutor, Sendable {
    private let loop: any EventLoop

    private init(_ loop: any EventLoop) { self.loop = loop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// One executor per event loop, made on first use and kept (a process has a handful of
    /// loops, which live as long as their group; an executor keeps its loop alive, so an
    /// identifier is never reused for another loop).
    private static let executors = LockedValue([ObjectIdentifier: EventLoopExecutor]())

    static func of(_ loop: any EventLoop) -> EventLoopExecutor {
        let id = ObjectIdentifier(loop)
        return executors.withLock { executors in
            if let executor = executors[id] { return executor }
            let executor = EventLoopExecutor(loop)
            executors[id] = executor
            return executor
        }
    }
}

extension PostgresClient {
    /// Leases a connection and runs `body` with it on the connection's event loop
    /// (``EventLoopExecutor``; on Apple systems before macOS 15 and iOS 18, where the standard
    /// library has no task executors, wherever the task runs).
    func onConnectionLoop<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await withConnection { connection in
            if #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) {
                return try await withTaskExecutorPreference(EventLoopExecutor.of(connection.eventLoop)) {
                    try await body(connection)
                }
            }
            return try await body(connection)
        }
    }
}
