import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Stash
import StashHTTPAsyncClient
import StashHTTPServer
import StashToolSupport

extension Tour {
    @Sendable static func cachingProxy(_ tour: Tour) async throws {
        let originRequests = LockedValue(0)
        let router = Router()
        router.get("/report") { request, _ -> Response in
            originRequests.withLock { $0 += 1 }
            var headers = HTTPFields()
            headers[.cacheControl] = "public, max-age=60"
            headers[.eTag] = "\"r1\""
            if request.headers[.ifNoneMatch] == "\"r1\"" { return Response(status: .notModified, headers: headers) }
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: "quarterly report")))
        }
        let (originPort, origin) = try await Tour.startOrigin(router)

        // The proxy's cache runs on a clock the tour moves, so ages are exact.
        let clock = Tour.originClock()
        let cache = try HTTPCache(diskCapacity: 0, mode: .shared, clock: clock)
        let proxy = HTTPCachingProxy(upstream: URL(string: "http://127.0.0.1:\(originPort)")!, cache: cache)
        let proxyServer: ListeningServer
        do {
            proxyServer = try await ListeningServer.start("caching proxy") { listening in
                try await proxy.run(port: 0, logger: Tour.quietLogger) { listening($0) }
            }
        } catch {
            try? await proxy.shutdown()
            origin.cancel()
            throw error
        }
        let (proxyPort, server) = (proxyServer.port, proxyServer.task)
        tour.say("HTTPCachingProxy (what `stash http-proxy` runs) listens on 127.0.0.1:\(proxyPort)")
        tour.say("in front of a loopback origin on 127.0.0.1:\(originPort) (Cache-Control: public, max-age=60; ETag).")

        let client = AsyncHTTPClientTransport(timeout: .seconds(10))
        let report = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(proxyPort)", path: "/report")
        // Ages are shown for hits only: the origin dates its answers by the real clock, the
        // proxy's cache by the tour's, so the age of a just-revalidated answer would mislead.
        func show(_ what: String, age showsAge: Bool = false) async throws {
            let (response, body) = try await client.send(report, body: Data())
            let age = showsAge ? ", Age \(response.headerFields[.age] ?? "-")" : ""
            let status = response.headerFields[HTTPField.Name("Cache-Status")!] ?? "-"
            tour.say("\(what): \(response.status.code)\(age), Cache-Status \(status): \(String(decoding: body, as: UTF8.self))")
        }
        do {
            try await show("first request (a miss, stored)")
            clock.advance(by: 25)
            try await show("25 s later (a hit, served by the proxy)", age: true)
            clock.advance(by: 60)
            try await show("85 s later (stale: revalidated with If-None-Match, the origin said 304)")
            tour.say("The origin saw \(originRequests.withLock { $0 }) requests for 3 answers.")
        } catch {
            try? await client.shutdown()
            server.cancel()
            try? await proxy.shutdown()
            origin.cancel()
            throw error
        }
        try await client.shutdown()
        server.cancel()
        try await proxy.shutdown()
        origin.cancel()
    }
}
