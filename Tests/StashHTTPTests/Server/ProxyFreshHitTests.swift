import Foundation
import HTTPTypes
import NIOCore
import StashCore
import StashHTTP
import StashHTTPAsyncClient
import StashTestSupport
import StashToolSupport
import Testing
@testable import StashHTTPServer

/// Fresh hits answered on the event loop from a connection's raw bytes (`RawHitHandler`):
/// byte for byte what the full asynchronous flow answers, in request order, and never a
/// response the cache no longer holds.
struct ProxyFreshHitTests {
    /// Two proxies over one cache and one origin: `fast` answers fresh hits on the event
    /// loop, `full` sends every request through `respond(to:body:)`.
    struct Pair {
        let clock: ManualClock
        let origin: TestOrigin
        let cache: HTTPCache
        let fast: Server
        let full: Server
        /// The requests `fast` answered on the event loop.
        let answers: LockedValue<Int>

        struct Server {
            let proxy: HTTPCachingProxy
            let task: Task<Void, any Error>
            let port: Int

            static func start(_ proxy: HTTPCachingProxy) async throws -> Server {
                let server = try await ListeningServer.start("proxy") { listening in try await proxy.run(port: 0) { listening($0) } }
                return Server(proxy: proxy, task: server.task, port: server.port)
            }

            func stop() async throws {
                task.cancel()
                _ = try? await task.value
                try await proxy.shutdown()
            }
        }

        static func with(configuration: HTTPCachingProxy.Configuration = .init(), _ body: (Pair) async throws -> Void) async throws {
            let clock = ManualClock(now: Date(timeIntervalSince1970: 1_700_000_000))
            let origin = try await TestOrigin.start(clock: clock)
            let cache = try HTTPCache(diskCapacity: 0, mode: .shared, clock: clock)
            let answers = LockedValue(0)
            func proxy(_ fast: Bool) -> HTTPCachingProxy {
                HTTPCachingProxy(
                    upstream: URL(string: origin.base)!, cache: cache, configuration: configuration,
                    transport: AsyncHTTPClientTransport(timeout: .seconds(10)), answersHitsOnEventLoop: fast,
                    onEventLoopAnswer: { answers.withLock { $0 += 1 } }
                )
            }
            let pair = Pair(
                clock: clock, origin: origin, cache: cache, fast: try await Server.start(proxy(true)), full: try await Server.start(proxy(false)),
                answers: answers
            )
            defer { origin.stop() }
            do {
                try await body(pair)
            } catch {
                try? await pair.fast.stop()
                try? await pair.full.stop()
                throw error
            }
            try await pair.fast.stop()
            try await pair.full.stop()
        }

        /// One request on a new connection to `server`, read whole.
        func exchange(_ server: Server, _ method: String, _ path: String, _ fields: String = "") async throws -> String {
            let client = try RawClient(port: server.port)
            #expect(client.send("\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(fields)\r\n"))
            return try #require(await client.response(toHead: method == "HEAD"))
        }

        var eventLoopAnswers: Int { answers.withLock { $0 } }

        /// `/page` stored (answering `cached`), `/other` never stored (answering `upstream`),
        /// and a new connection to the `fast` proxy.
        func cachedPageAndUncachedOther() async throws -> RawClient {
            origin.set("/page", .init(fields: ProxyFreshHitTests.stored, body: "cached"))
            origin.set("/other", .init(fields: [("Cache-Control", "no-store")], body: "upstream"))
            _ = try await exchange(fast, "GET", "/page")
            return try RawClient(port: fast.port)
        }
    }

    private static let stored: [(String, String)] = [
        ("Cache-Control", "max-age=600"), ("ETag", "\"v1\""), ("X-Multi", "one"), ("X-Multi", "two"),
        ("Connection", "X-Hop"), ("X-Hop", "dropped"), ("Content-Type", "text/plain"),
    ]

    /// The same stored response, at the same moment, gives the same bytes on both paths:
    /// status line, every field in order (`Age`, `Content-Length`, `Cache-Status`), body;
    /// for `GET` and for `HEAD`, and again once the `Age` has moved on; with a body joined to
    /// its head in one buffer (up to `WireForm.wholeLimit` bytes) and one sent after it.
    @Test(arguments: [15, WireForm.wholeLimit, WireForm.wholeLimit + 1])
    func eventLoopHitIsByteForByteTheFullFlowsAnswer(bodySize: Int) async throws {
        let storedBody = String((0..<bodySize).map { Character(UnicodeScalar(UInt8(97 + $0 % 26))) })
        try await Pair.with { pair in
            pair.origin.set("/page", .init(fields: Self.stored, body: storedBody))
            let miss = try await pair.exchange(pair.full, "GET", "/page")
            #expect(miss.contains("Cache-Status: stash; fwd=miss"))
            for seconds in [0.0, 7, 0.4, 100] {
                pair.clock.advance(by: seconds)
                for method in ["GET", "HEAD"] {
                    let before = pair.eventLoopAnswers
                    let fast = try await pair.exchange(pair.fast, method, "/page", "Accept: */*\r\n")
                    let full = try await pair.exchange(pair.full, method, "/page", "Accept: */*\r\n")
                    #expect(pair.eventLoopAnswers == before + 1)
                    #expect(fast == full)
                    #expect(fast.hasPrefix("HTTP/1.1 200 OK\r\n"))
                    #expect(fast.contains("\r\nCache-Status: stash; hit\r\n"))
                    #expect(fast.contains("\r\nContent-Length: \(bodySize)\r\n"))
                    #expect(!fast.contains("X-Hop"))
                    #expect(fast.hasSuffix(method == "GET" ? "\r\n\r\n" + storedBody : "\r\n\r\n"))
                }
            }
            #expect(try await pair.exchange(pair.fast, "GET", "/page").contains("\r\nAge: 107\r\n"))
            #expect(pair.origin.requests("/page").count == 1)
        }
    }

    /// Requests the full flow must weigh are never answered on the event loop, and still get
    /// their own answers: a conditional gets `304`, a `Range` `206`, `no-cache` goes upstream.
    @Test func requestsWithDirectivesConditionsOrRangesTakeTheFullFlow() async throws {
        try await Pair.with { pair in
            pair.origin.set("/page", .init(fields: Self.stored, body: "the stored body"))
            _ = try await pair.exchange(pair.fast, "GET", "/page")
            let notModified = try await pair.exchange(pair.fast, "GET", "/page", "If-None-Match: \"v1\"\r\n")
            #expect(notModified.hasPrefix("HTTP/1.1 304"))
            let part = try await pair.exchange(pair.fast, "GET", "/page", "Range: bytes=4-9\r\n")
            #expect(part.hasPrefix("HTTP/1.1 206") && part.hasSuffix("stored"))
            let reloaded = try await pair.exchange(pair.fast, "GET", "/page", "Cache-Control: no-cache\r\n")
            #expect(reloaded.contains("Cache-Status: stash; fwd="))
            let dotted = try await pair.exchange(pair.fast, "GET", "/a/../page")
            #expect(dotted.hasPrefix("HTTP/1.1 400"))
            #expect(pair.eventLoopAnswers == 0)
        }
    }

    /// A hit pipelined behind a miss on one connection waits for the miss's answer: the
    /// answers come back in request order.
    @Test func pipelinedHitBehindAMissKeepsTheOrder() async throws {
        try await Pair.with { pair in
            pair.origin.set("/page", .init(fields: Self.stored, body: "cached"))
            pair.origin.set("/slow", .init(fields: [("Cache-Control", "no-store")], body: "slow", delay: 200))
            _ = try await pair.exchange(pair.fast, "GET", "/page")
            let client = try RawClient(port: pair.fast.port)
            #expect(client.send("GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /page HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
            let first = try #require(await client.response())
            let second = try #require(await client.response())
            #expect(first.hasSuffix("\r\n\r\nslow"))
            #expect(second.hasSuffix("\r\n\r\ncached") && second.contains("Cache-Status: stash; hit"))
            // The connection stays with the full flow, whose hit is the same answer.
            let before = pair.eventLoopAnswers
            #expect(client.send("GET /page HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
            #expect(try #require(await client.response()).hasSuffix("cached"))
            #expect(pair.eventLoopAnswers == before)
        }
    }

    /// An invalidation, by an unsafe request through the proxy or by the cache's own API, is
    /// seen by the very next request on the event loop path.
    @Test func invalidationIsSeenAtOnce() async throws {
        try await Pair.with { pair in
            pair.origin.set("/page", .init(fields: Self.stored, body: "cached"))
            let get = "GET /page HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
            // Stored under the upstream's authority, whatever `Host` the client sent.
            let page = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(pair.origin.port)", path: "/page")
            // Each request on a connection of its own, so that each starts on the raw path.
            func ask(_ head: String) async throws -> String {
                let client = try RawClient(port: pair.fast.port)
                client.send(head)
                return await client.response() ?? ""
            }
            // A miss is answered as its body streams, and stored once it is whole: the hits
            // below are asked for once it is stored, so that the event loop can answer them.
            func waitUntilStored() async throws {
                for _ in 0..<200 where pair.cache.cachedResponse(for: page) == nil { try await Task.sleep(for: .milliseconds(10)) }
                try #require(pair.cache.cachedResponse(for: page) != nil)
            }
            _ = try await ask(get)
            try await waitUntilStored()
            #expect(try await ask(get).contains("Cache-Status: stash; hit"))
            #expect(try await ask("POST /page HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\nhi").hasPrefix("HTTP/1.1 200"))
            #expect(try await ask(get).contains("Cache-Status: stash; fwd=miss"))
            try await waitUntilStored()
            #expect(try await ask(get).contains("Cache-Status: stash; hit"))
            pair.cache.removeResponses(for: page)
            #expect(try await ask(get).contains("Cache-Status: stash; fwd=miss"))
            #expect(pair.origin.requests("/page").filter { $0.method == .get }.count == 3)
            #expect(pair.eventLoopAnswers == 2)
        }
    }

    /// A connection served only by event-loop hits is still closed when idle, and closed by a
    /// graceful shutdown (the hit handler keeps the idle timeout; HummingbirdCore counts the
    /// forwarded requests, and a hit is whole once answered).
    @Test func hitsAnsweredOnTheEventLoopKeepIdleTimeoutAndShutdown() async throws {
        let configuration = HTTPCachingProxy.Configuration(headerTimeout: .seconds(60), idleTimeout: .milliseconds(200))
        try await Pair.with(configuration: configuration) { pair in
            pair.origin.set("/page", .init(fields: Self.stored, body: "cached"))
            _ = try await pair.exchange(pair.fast, "GET", "/page")
            let idle = try RawClient(port: pair.fast.port)
            idle.send("GET /page HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(await idle.response()?.contains("Cache-Status: stash; hit") == true)
            #expect(await idle.isClosedByPeer())
            #expect(pair.eventLoopAnswers == 1)
        }
        try await Pair.with { pair in
            pair.origin.set("/page", .init(fields: Self.stored, body: "cached"))
            _ = try await pair.exchange(pair.fast, "GET", "/page")
            let open = try RawClient(port: pair.fast.port)
            open.send("GET /page HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(await open.response()?.contains("Cache-Status: stash; hit") == true)
            pair.fast.task.cancel()
            #expect(await open.isClosedByPeer())
        }
    }

    /// NIO's response encoder pairs each response with its request's method: a `HEAD`
    /// answered on the event loop, pipelined before a `GET` that goes upstream and a `GET`
    /// hit, leaves the next answers their bodies.
    @Test func pipelinedHeadHitLeavesTheNextAnswersTheirBodies() async throws {
        try await Pair.with { pair in
            let client = try await pair.cachedPageAndUncachedOther()
            let host = "Host: 127.0.0.1\r\n\r\n"
            #expect(client.send("HEAD /page HTTP/1.1\r\n\(host)GET /other HTTP/1.1\r\n\(host)GET /page HTTP/1.1\r\n\(host)"))
            let head = try #require(await client.response(toHead: true))
            #expect(head.contains("Cache-Status: stash; hit") && head.hasSuffix("\r\n\r\n"))
            #expect(await client.response()?.hasSuffix("\r\n\r\nupstream") == true)
            #expect(await client.response()?.hasSuffix("\r\n\r\ncached") == true)
            #expect(pair.eventLoopAnswers >= 1)
        }
    }

    /// The request the event-loop path reads from raw bytes selects variants as the full
    /// flow does (`Vary` on a field other than `Host`), and requests it does not take
    /// (HTTP/1.0, an absolute-form target) get the full flow's answer.
    @Test func eventLoopRequestSelectsTheSameVariantAndLeavesOtherFormsToTheFullFlow() async throws {
        try await Pair.with { pair in
            pair.origin.set("/page", .init(fields: [("Cache-Control", "max-age=600"), ("Vary", "Accept-Language")], body: "varied"))
            for language in ["en", "fr"] {
                _ = try await pair.exchange(pair.full, "GET", "/page", "Accept-Language: \(language)\r\n")
            }
            let before = pair.eventLoopAnswers
            for language in ["en", "fr"] {
                let fast = try await pair.exchange(pair.fast, "GET", "/page", "Accept-Language: \(language)\r\n")
                let full = try await pair.exchange(pair.full, "GET", "/page", "Accept-Language: \(language)\r\n")
                #expect(fast == full && fast.contains("Cache-Status: stash; hit"))
            }
            #expect(pair.eventLoopAnswers == before + 2)
            let other = try await pair.exchange(pair.fast, "GET", "/page", "Accept-Language: de\r\n")
            #expect(other.contains("Cache-Status: stash; fwd=miss"))
            #expect(pair.eventLoopAnswers == before + 2)

            let old = try RawClient(port: pair.fast.port)
            #expect(old.send("GET /page HTTP/1.0\r\nHost: 127.0.0.1\r\nAccept-Language: en\r\n\r\n"))
            #expect(await old.response()?.contains("Cache-Status: stash; hit") == true)
            let absolute = try RawClient(port: pair.fast.port)
            #expect(absolute.send("GET http://127.0.0.1:\(pair.origin.port)/page HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Language: en\r\n\r\n"))
            #expect(await absolute.response()?.contains("Cache-Status: stash; hit") == true)
            // HTTP/1.0 and the absolute form (reduced to its path by the gate) take the full flow.
            #expect(pair.eventLoopAnswers == before + 2)
            #expect(pair.origin.requests("/page").count == 3)
        }
    }

    /// Fields the proxy never forwards (hop-by-hop ones, `Proxy-Authorization`) are left out of the request the cache looks up on both event-loop paths, in
    /// any spelling, as the full flow leaves them out: a response that varies on one of them
    /// is stored with it absent, and a request carrying it is that variant's hit, the same
    /// bytes as the full flow's answer. A conditional goes to the full flow from both.
    @Test func fieldsNeverForwardedAreLeftOutOnBothEventLoopPaths() async throws {
        try await Pair.with { pair in
            pair.origin.set("/page", .init(fields: [("Cache-Control", "max-age=600"), ("Vary", "Upgrade, TE")], body: "varied"))
            pair.origin.set("/other", .init(fields: [("Cache-Control", "no-store")], body: "upstream"))
            let dropped = "UPGRADE: h2c\r\nte: trailers\r\nKeep-Alive: 5\r\nProxy-Authorization: Basic eDp5\r\n"
            _ = try await pair.exchange(pair.full, "GET", "/page", dropped)
            let before = pair.eventLoopAnswers
            let full = try await pair.exchange(pair.full, "GET", "/page", dropped)
            let raw = try await pair.exchange(pair.fast, "GET", "/page", dropped)
            #expect(raw == full && raw.contains("Cache-Status: stash; hit"))
            #expect(pair.eventLoopAnswers == before + 1)

            // A miss hands the connection to the decoder; the same request is then a hit of
            // the full flow, the same bytes.
            let client = try RawClient(port: pair.fast.port)
            #expect(client.send("GET /other HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
            #expect(await client.response()?.hasSuffix("\r\n\r\nupstream") == true)
            #expect(client.send("GET /page HTTP/1.1\r\nHost: 127.0.0.1\r\n\(dropped)\r\n"))
            #expect(await client.response() == full)
            #expect(pair.eventLoopAnswers == before + 1)
            // A conditional takes the full flow on that connection too (a 304 from the cache).
            #expect(client.send("GET /page HTTP/1.1\r\nHost: 127.0.0.1\r\nif-none-match: *\r\n\r\n"))
            #expect(await client.response(toHead: true)?.hasPrefix("HTTP/1.1 304") == true)
            #expect(pair.eventLoopAnswers == before + 1)
            #expect(pair.origin.requests("/page").count == 1)
        }
    }

    /// Before the decoder: hits pipelined in one read are answered from the raw bytes in
    /// order, and the first request not answered there (a miss) hands the connection to the
    /// decoder and the full flow for good (a hit pipelined behind the miss waits its turn
    /// there). `RawHitHandlerTests` checks the same piece by piece, split heads included.
    @Test func rawBytesPathAnswersPipelinedHitsUntilTheFirstMiss() async throws {
        try await Pair.with { pair in
            let client = try await pair.cachedPageAndUncachedOther()
            let before = pair.eventLoopAnswers
            let get = "GET /page HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
            #expect(client.send(get + "HEAD /page HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" + get + "GET /other HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" + get))
            #expect(await client.response()?.hasSuffix("\r\n\r\ncached") == true)
            #expect(await client.response(toHead: true)?.contains("Cache-Status: stash; hit") == true)
            #expect(await client.response()?.hasSuffix("\r\n\r\ncached") == true)
            #expect(await client.response()?.hasSuffix("\r\n\r\nupstream") == true)
            #expect(await client.response()?.hasSuffix("\r\n\r\ncached") == true)
            #expect(pair.eventLoopAnswers == before + 3)
            #expect(client.send(get))
            #expect(await client.response()?.hasSuffix("\r\n\r\ncached") == true)
            #expect(pair.eventLoopAnswers == before + 3)
            #expect(pair.origin.requests("/page").count == 1)
        }
    }
}
