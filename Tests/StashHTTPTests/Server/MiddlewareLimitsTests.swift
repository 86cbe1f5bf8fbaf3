import Foundation
import HTTPTypes
import Hummingbird
import StashCore
import StashHTTP
import StashHTTPAsyncClient
import StashHTTPServer
import StashToolSupport
import Testing

/// The middleware reads a request body whole (the cache forwards it), so it reads at most
/// `maximumRequestBodySize`: a longer body is refused with 413 and never reaches the route.
@Suite(.timeLimit(.minutes(1)))
struct MiddlewareLimitsTests {
    @Test func aRequestBodyOverTheLimitIsRefusedBeforeTheRoute() async throws {
        let cache = try HTTPCache(diskCapacity: 0, mode: .shared)
        let received = LockedValue([Int]())
        let router = Router()
        router.add(middleware: HTTPCacheMiddleware(cache: cache, maximumRequestBodySize: 1000))
        router.post("/upload") { request, _ -> Response in
            let body = try await request.body.collect(upTo: .max)
            received.withLock { $0.append(body.readableBytes) }
            return Response(status: .noContent)
        }
        let responder = router.buildResponder()
        let origin = try await ListeningServer.start("origin") { listening in
            let app = Application(
                responder: responder,
                configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
                onServerRunning: { listening($0.localAddress?.port ?? 0) }
            )
            try await GracefulShutdown.run(app, logger: app.logger)
        }
        let transport = AsyncHTTPClientTransport(timeout: .seconds(10))
        let request = HTTPRequest(method: .post, scheme: "http", authority: "127.0.0.1:\(origin.port)", path: "/upload")

        let (fits, _) = try await transport.send(request, body: Data(count: 1000))
        #expect(fits.status == .noContent)
        let (over, _) = try await transport.send(request, body: Data(count: 1001))
        #expect(over.status == .contentTooLarge)
        #expect(received.withLock { $0 } == [1000], "a body over the limit reached the route")

        origin.task.cancel()
        try await transport.shutdown()
    }
}
