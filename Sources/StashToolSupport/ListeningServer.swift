import StashCore

/// A server started in a task of its own, returned once it listens: the port it reports and
/// its task (cancel the task to stop the server). The one way the tour, the benchmark and
/// the tests start their loopback servers: a server that stops before it listens (a port in
/// use, say) makes ``start(_:run:)`` throw its error instead of waiting for a port forever.
///
/// ```swift
/// let proxy = try await ListeningServer.start("proxy") { listening in
///     try await proxy.run(port: 0, logger: logger) { listening($0) }
/// }
/// defer { proxy.task.cancel() }
/// // http://127.0.0.1:\(proxy.port)
/// ```
package struct ListeningServer: Sendable {
    /// The port the server reported once it listened.
    package let port: Int
    /// The server's task: cancelling it stops the server.
    package let task: Task<Void, any Error>

    /// Runs `run` in a new task and waits until it calls `listening` with its port; throws
    /// what `run` threw when it ends first, or `.io` naming `name` when it ends without an
    /// error. Cancelling the caller while it waits cancels the server.
    package static func start(
        _ name: String,
        run: @escaping @Sendable (_ listening: @escaping @Sendable (Int) -> Void) async throws -> Void
    ) async throws -> ListeningServer {
        let ready = AsyncStream<Int>.makeStream()
        let task = Task {
            // A server that fails before it listens must not leave the caller waiting.
            defer { ready.continuation.finish() }
            try await run { ready.continuation.yield($0) }
        }
        let port = await withTaskCancellationHandler {
            var ports = ready.stream.makeAsyncIterator()
            return await ports.next()
        } onCancel: {
            task.cancel()
        }
        if let port { return ListeningServer(port: port, task: task) }
        try await task.value
        try Task.checkCancellation()
        throw StashError(.io, "the \(name) stopped before it listened")
    }
}
