import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Stash
import StashHTTPAsyncClient
import StashToolSupport

extension Tour {
    @Sendable static func httpCache(_ tour: Tour) async throws {
        let version = LockedCounter()
        let router = Router()
        router.get("/news") { request, _ -> Response in
            let tag = "\"v\(version.value)\""
            var headers = HTTPFields()
            headers[.cacheControl] = "max-age=60"
            headers[.eTag] = tag
            if request.headers[.ifNoneMatch] == tag { return Response(status: .notModified, headers: headers) }
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: "headlines \(tag)")))
        }
        router.post("/news") { _, _ -> Response in
            version.increment()
            return Response(status: .noContent)
        }
        let (port, server) = try await Tour.startOrigin(router)
        tour.say("A loopback origin on 127.0.0.1:\(port) serves /news with Cache-Control: max-age=60 and an ETag.")

        // The cache's clock moves only when the tour says so, so every answer below is the
        // same on a loaded machine as on an idle one.
        let clock = Tour.originClock()
        let cache = try HTTPCache(memoryCapacity: 1 << 20, diskCapacity: 8 << 20,
                                  directory: tour.sandbox.caches.appendingPathComponent("HTTPCache"), clock: clock)
        let transport = AsyncHTTPClientTransport(timeout: .seconds(10))
        let client = CachingHTTPClient(cache: cache, transport: transport)
        let news = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(port)", path: "/news")
        func show(_ what: String, _ answer: CachedHTTPResponse) {
            // Ages are shown for hits only: the origin dates its answers by the real clock, the
            // cache by the tour's, so the age of a just-revalidated answer would mislead.
            let age = answer.outcome == .cache ? answer.response.headerFields[.age].map { ", Age \($0)" } ?? "" : ""
            tour.say("\(what): \(answer.response.status.code) from \(answer.outcome.rawValue)\(age): \(String(decoding: answer.body, as: UTF8.self))")
        }
        do {
            show("first GET (stored)", try await client.send(news))
            show("at once (hit)", try await client.send(news))
            clock.advance(by: 90)
            show("90 s later, stale (revalidated with If-None-Match, 304)", try await client.send(news))
            var post = news
            post.method = .post
            _ = try await client.send(post)
            show("after POST /news (invalidated, fetched again)", try await client.send(news))
            tour.say("Statistics: \(cache.statistics)")
            try await cache.flush()
            tour.showFiles(under: tour.sandbox.caches.appendingPathComponent("HTTPCache"))
        } catch {
            try? await transport.shutdown()
            server.cancel()
            throw error
        }
        try cache.close()
        try await transport.shutdown()
        server.cancel()
    }
}

/// The tour origin's content version, bumped by POST.
private final class LockedCounter: Sendable {
    private let count = LockedValue(1)
    var value: Int { count.withLock { $0 } }
    func increment() { count.withLock { $0 += 1 } }
}

extension Tour {
    /// Starts `router` on a free port of 127.0.0.1 once it listens (or throws why it could
    /// not); cancel the task to stop it.
    static func startOrigin(_ router: Router<BasicRequestContext>) async throws -> (port: Int, server: Task<Void, any Error>) {
        let responder = router.buildResponder()
        let origin = try await ListeningServer.start("tour's origin") { listening in
            try await Application(
                responder: responder,
                configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
                onServerRunning: { listening($0.localAddress?.port ?? 0) },
                logger: Tour.quietLogger
            ).run()
        }
        return (origin.port, origin.task)
    }

    /// The clock of a tour cache in front of a loopback origin: stopped on a whole second,
    /// five seconds behind the real time. The origin dates its answers by the real clock as
    /// its server last formatted it, which a timer renews once a second (later on a loaded
    /// machine); a date up to five seconds old is still not older than the cache's now, so
    /// the ages the tour shows (from the cache's now and that date) do not depend on the
    /// machine's load.
    static func originClock() -> ManualClock {
        ManualClock(now: Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 5).rounded(.down)))
    }

    /// The loopback origin's server logs only what would stop the tour, so that its start and
    /// shutdown lines do not interleave with what the tour prints.
    static var quietLogger: Logger {
        var logger = Logger(label: "stash.tour.origin")
        logger.logLevel = .critical
        return logger
    }
}
