public import HummingbirdCore
import Logging
public import NIOCore
import NIOPosix
import ServiceLifecycle
import StashCore
import StashHTTPServer
import StashToolSupport

/// A HummingbirdCore HTTP/1.1 server on 127.0.0.1, quiet, on a free port: what the test
/// origins of StashHTTPTests and StashPostgresTests run on. Cancel `task` to stop it
/// (gracefully: requests in flight finish).
///
/// ```swift
/// let server = try await LoopbackServer.start(label: "test-origin") { request, writer, _ in
///     for try await _ in request.body {}
///     try await writer.write(response: HTTPResponse(status: .noContent), body: ResponseBody())
/// }
/// defer { server.task.cancel() }
/// // http://127.0.0.1:\(server.port)
/// ```
public struct LoopbackServer: Sendable {
    /// The port the server listens on.
    public let port: Int
    /// The server's task: cancelling it stops the server.
    public let task: Task<Void, any Error>

    /// Starts a server answering with `responder` on a free port (or on `port`), once it
    /// listens; throws the server's own error when it stops before (a port in use, say).
    ///
    /// ```swift
    /// let server = try await LoopbackServer.start(label: "origin") { _, writer, _ in
    ///     try await writer.write(response: HTTPResponse(status: .ok), body: ResponseBody())
    /// }
    /// ```
    public static func start(label: String, port: Int = 0, responder: @escaping HTTPChannelHandler.Responder) async throws -> LoopbackServer {
        var logger = Logger(label: label)
        logger.logLevel = .critical
        let quiet = logger
        let server = try await ListeningServer.start("\(label) server on 127.0.0.1:\(port)") { listening in
            // Stopped gracefully: a connection accepted as the task is cancelled is still served
            // (or closed), never dropped unhandled, which NIO traps on.
            let server = try HTTPServerBuilder.http1().buildServer(
                configuration: ServerConfiguration(address: .hostname("127.0.0.1", port: port)),
                eventLoopGroup: NIOSingletons.posixEventLoopGroup,
                logger: quiet,
                responder: responder,
                onServerRunning: { channel in listening(channel.localAddress?.port ?? 0) }
            )
            try await GracefulShutdown.run(server, logger: quiet)
        }
        return LoopbackServer(port: server.port, task: server.task)
    }
}
