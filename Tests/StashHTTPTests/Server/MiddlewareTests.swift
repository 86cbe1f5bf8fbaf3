import Foundation
import HTTPTypes
import Hummingbird
import StashCore
import StashHTTP
import StashHTTPAsyncClient
import StashHTTPServer
import StashToolSupport
import Testing

/// The Hummingbird middleware: a server caches its own hot routes.
struct MiddlewareTests {
    @Test func hotRouteIsComputedOncePerLifetime() async throws {
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_700_000_000))
        let cache = try HTTPCache(diskCapacity: 0, mode: .shared, clock: clock)
        let calls = LockedValue(0)
        let router = Router()
        router.add(middleware: HTTPCacheMiddleware(cache: cache))
        router.get("/hot") { _, _ -> Response in
            let count = calls.withLock { value -> Int in
                value += 1
                return value
            }
            var response = Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(string: "computed \(count)")))
            response.headers[.cacheControl] = "max-age=60"
            return response
        }
        router.post("/hot") { _, _ in Response(status: .noContent) }
        let responder = router.buildResponder()
        let origin = try await ListeningServer.start("origin") { listening in
            let app = Application(
                responder: responder,
                configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
                onServerRunning: { listening($0.localAddress?.port ?? 0) }
            )
            try await GracefulShutdown.run(app, logger: app.logger)
        }
        let (port, server) = (origin.port, origin.task)
        let transport = AsyncHTTPClientTransport(timeout: .seconds(10))
        let request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(port)", path: "/hot")

        let (_, first) = try await transport.send(request, body: Data())
        let (_, second) = try await transport.send(request, body: Data())
        #expect(String(decoding: first, as: UTF8.self) == "computed 1")
        #expect(String(decoding: second, as: UTF8.self) == "computed 1")
        clock.advance(by: 120)
        let (_, third) = try await transport.send(request, body: Data())
        #expect(String(decoding: third, as: UTF8.self) == "computed 2")
        var post = request
        post.method = .post
        _ = try await transport.send(post, body: Data())
        let (_, fourth) = try await transport.send(request, body: Data())
        #expect(String(decoding: fourth, as: UTF8.self) == "computed 3")

        server.cancel()
        try await transport.shutdown()
    }
}
