import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// A HummingbirdCore HTTP/1.1 server on 127.0.0.1, quiet, on a free port: what the test
/// origins run on. Cancel `task` to stop it.
struct LoopbackServer {
    let port: Int
    let task: Task<Void, any Error>

    static func start(label: String, responder: @escaping HTTPChannelHandler.Responder) async throws -> LoopbackServer {
        let ready = AsyncStream<Int>.makeStream()
        var logger = Logger(label: label)
        logger.logLevel = .critical
        let server = try HTTPServerBuilder.http1().buildServer(
            configuration: ServerConfiguration(address: .hostname("127.0.0.1", port: 0)),
            eventLoopGroup: NIOSingletons.posixEventLoopGroup,
            logger: logger,
            responder: responder,
            onServerRunning: { channel in ready.continuation.yield(channel.localAddress?.port ?? 0) }
        )
        let task = Task { try await server.run() }
        var iterator = ready.stream.makeAsyncIterator()
        return LoopbackServer(port: await iterator.next() ?? 0, task: task)
    }
}
