import Foundation
import Hummingbird
import Logging
import StashHTTPServer

/// The servers of the proxy cases (`http` and `shared` suites): an origin on 127.0.0.1 and
/// the proxies in front of it, each run in a task the case cancels when it ends.
enum BenchServers {
    /// Starts a Hummingbird origin on a free port whose `GET /NAME/{id}` answers `size` bytes
    /// of `a`, fresh for an hour (`Cache-Control: max-age=3600`); answers its port and task.
    static func startOrigin(payloads: [(name: String, size: Int)], logger: Logger) async throws -> (port: Int, task: Task<Void, any Error>) {
        let router = Router()
        for (name, size) in payloads {
            let payload = ByteBuffer(repeating: 0x61, count: size)
            router.get("/\(name)/{id}") { _, _ -> Response in
                var response = Response(status: .ok, body: ResponseBody(byteBuffer: payload))
                response.headers[.cacheControl] = "max-age=3600"
                return response
            }
        }
        let ready = AsyncStream<Int>.makeStream()
        let origin = Application(router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
                                 onServerRunning: { ready.continuation.yield($0.localAddress?.port ?? 0) }, logger: logger)
        let task = Task {
            // A server that fails before it runs must not leave the caller waiting for a port.
            defer { ready.continuation.finish() }
            try await GracefulShutdown.run(origin, logger: logger)
        }
        return (try await port(ready.stream, of: task, "origin"), task)
    }

    /// Starts `proxy` on a free port of 127.0.0.1; answers its port and task.
    static func start(_ proxy: HTTPCachingProxy, logger: Logger) async throws -> (port: Int, task: Task<Void, any Error>) {
        let ready = AsyncStream<Int>.makeStream()
        let task = Task {
            defer { ready.continuation.finish() }
            try await proxy.run(port: 0, logger: logger) { ready.continuation.yield($0) }
        }
        return (try await port(ready.stream, of: task, "proxy"), task)
    }

    /// The port a server reports once it runs, or its error when it stops before.
    private static func port(_ ports: AsyncStream<Int>, of task: Task<Void, any Error>, _ name: String) async throws -> Int {
        var iterator = ports.makeAsyncIterator()
        if let port = await iterator.next() { return port }
        try await task.value
        throw BenchError("the \(name) stopped before it listened")
    }
}
