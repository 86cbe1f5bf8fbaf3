import Foundation
import HTTPTypes
import NIOCore
import StashCore
import StashHTTP
import StashHTTPAsyncClient
import StashHTTPServer
import StashTestSupport
import StashToolSupport
import Testing

/// The reverse proxy: forwarding of methods and fields, hop-by-hop fields, upstream failure.
struct ProxyTests {
    struct Running {
        let origin: TestOrigin
        let proxy: HTTPCachingProxy
        let server: Task<Void, any Error>
        let port: Int
        let transport = AsyncHTTPClientTransport(timeout: .seconds(10))

        /// `upstreamPath`: a path prefix added to the test origin's URL (`/app`), unless
        /// `upstream` names another origin.
        static func start(
            upstream: String? = nil, upstreamPath: String = "", configuration: HTTPCachingProxy.Configuration = .init(),
            cache: HTTPCache? = nil
        ) async throws -> Running {
            let clock = ManualClock(now: Date(timeIntervalSince1970: 1_700_000_000))
            let origin = try await TestOrigin.start(clock: clock)
            let cache = try cache ?? HTTPCache(diskCapacity: 0, mode: .shared, clock: clock)
            let proxy = HTTPCachingProxy(
                upstream: URL(string: upstream ?? origin.base + upstreamPath)!, cache: cache, configuration: configuration,
                transport: AsyncHTTPClientTransport(
                    timeout: .seconds(5), readTimeout: TimeAmount(configuration.upstreamReadTimeout)
                )
            )
            let server = try await ListeningServer.start("proxy") { listening in try await proxy.run(port: 0) { listening($0) } }
            return Running(origin: origin, proxy: proxy, server: server.task, port: server.port)
        }

        func send(_ method: HTTPRequest.Method, _ path: String, _ fields: [(String, String)] = [], body: String = "") async throws -> (HTTPResponse, String) {
            var request = HTTPRequest(method: method, scheme: "http", authority: "127.0.0.1:\(port)", path: path)
            for (name, value) in fields { request.headerFields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
            let (response, data) = try await transport.send(request, body: Data(body.utf8))
            return (response, String(decoding: data, as: UTF8.self))
        }

        /// Runs `body` with a started proxy, stopping everything however `body` ends.
        static func with(
            upstream: String? = nil, upstreamPath: String = "", configuration: HTTPCachingProxy.Configuration = .init(),
            cache: HTTPCache? = nil, _ body: (Running) async throws -> Void
        ) async throws {
            let running = try await start(upstream: upstream, upstreamPath: upstreamPath, configuration: configuration, cache: cache)
            do {
                try await body(running)
            } catch {
                try? await running.stop()
                throw error
            }
            try await running.stop()
        }

        func stop() async throws {
            server.cancel()
            try await proxy.shutdown()
            try await transport.shutdown()
            origin.stop()
        }
    }

    @Test func forwardsEveryMethodAndEndToEndField() async throws {
        try await Running.with { running in
        running.origin.set("/echo", .ok([("Set-Cookie", "a=1"), ("Set-Cookie", "b=2"), ("Connection", "X-Hop"), ("X-Hop", "1")]))
        for method in [HTTPRequest.Method.get, .post, .put, .patch, .delete, .options] {
            let (response, _) = try await running.send(method, "/echo?q=1", [
                ("X-Multi", "one"), ("X-Multi", "two"), ("Connection", "X-Private"), ("X-Private", "secret"), ("Keep-Alive", "5"),
            ], body: method == .get ? "" : "payload")
            #expect(response.status == .ok)
            #expect(response.headerFields[values: .setCookie] == ["a=1", "b=2"])
            #expect(response.headerFields[HTTPField.Name("X-Hop")!] == nil)
            let seen = try #require(running.origin.requests("/echo").last)
            #expect(seen.method == method)
            #expect(seen.path == "/echo?q=1")
            #expect(seen.headerFields[values: HTTPField.Name("X-Multi")!] == ["one", "two"])
            #expect(seen.headerFields[HTTPField.Name("X-Private")!] == nil)
            #expect(seen.headerFields[HTTPField.Name("Keep-Alive")!] == nil)
        }
        }
    }

    @Test func reportsCacheStatus() async throws {
        try await Running.with { running in
        running.origin.set("/status", .ok([("Cache-Control", "max-age=60")]))
        let (first, _) = try await running.send(.get, "/status")
        let (second, body) = try await running.send(.get, "/status")
        #expect(first.headerFields[HTTPField.Name("Cache-Status")!] == "stash; fwd=miss")
        #expect(second.headerFields[HTTPField.Name("Cache-Status")!] == "stash; hit")
        #expect(second.headerFields[.age] == "0")
        #expect(body == "hello")
        }
    }

    /// `Location` and `Content-Location` naming the upstream absolutely reach the client as
    /// absolute paths (never with the client's `Host` written in), and invalidate the entries
    /// they name. One naming another host or port is left as it is.
    @Test func upstreamLocationsBecomePathsAndInvalidate() async throws {
        try await Running.with { running in
            let fresh: [(String, String)] = [("Cache-Control", "max-age=600")]
            running.origin.set("/one", .ok(fresh))
            running.origin.set("/two", .ok(fresh))
            _ = try await running.send(.get, "/one")
            _ = try await running.send(.get, "/two")
            running.origin.set("/post", .status(201, [
                ("Location", "\(running.origin.base)/one"), ("Content-Location", "\(running.origin.base.uppercased())/two?x=1"),
            ]))
            let (created, _) = try await running.send(.post, "/post", [("Host", "attacker.example")])
            #expect(created.headerFields[.location] == "/one")
            #expect(created.headerFields[.contentLocation] == "/two?x=1")
            _ = try await running.send(.get, "/one")
            _ = try await running.send(.get, "/two")
            #expect(running.origin.requests("/one").count == 2)
            #expect(running.origin.requests("/two").count == 1, "/two?x=1 is another URL")
            running.origin.set("/elsewhere", .status(302, [("Location", "\(running.origin.base)0/x")]))
            let (elsewhere, _) = try await running.send(.get, "/elsewhere")
            #expect(elsewhere.headerFields[.location] == "\(running.origin.base)0/x")
        }
    }

    @Test func unreachableUpstreamIsBadGateway() async throws {
        try await Running.with(upstream: "http://127.0.0.1:9") { running in
            let (response, _) = try await running.send(.get, "/nowhere")
            #expect(response.status == .badGateway)
        }
    }

    /// SwiftNIO parses `M-SEARCH` as `MSEARCH`; the origin must still see `M-SEARCH`, and the
    /// successful unsafe method invalidates the stored response.
    @Test func forwardsExtensionMethodsAsSpelled() async throws {
        let origin = try RawOrigin(replies: [
            "HTTP/1.1 200 OK\r\nCache-Control: max-age=600\r\nContent-Length: 2\r\n\r\nv1",
            "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
            "HTTP/1.1 200 OK\r\nCache-Control: max-age=600\r\nContent-Length: 2\r\n\r\nv2",
        ])
        defer { origin.stop() }
        try await Running.with(upstream: "http://127.0.0.1:\(origin.port)") { running in
            _ = try await running.send(.get, "/thing")
            let (searched, _) = try await running.send(HTTPRequest.Method("M-SEARCH")!, "/thing")
            let (after, body) = try await running.send(.get, "/thing")
            #expect(searched.status == .ok)
            #expect(after.status == .ok && body == "v2")
            #expect(origin.requestLines == ["GET /thing HTTP/1.1", "M-SEARCH /thing HTTP/1.1", "GET /thing HTTP/1.1"])
        }
    }

    /// An origin that sends more bytes than its `Content-Length` leaves garbage on the pooled
    /// connection; the next idempotent request is retried on a fresh one instead of failing.
    @Test func misframedUpstreamResponseDoesNotBreakTheNextRequest() async throws {
        let origin = try RawOrigin(replies: [
            "HTTP/1.1 200 OK\r\nCache-Control: no-store\r\nContent-Length: 2\r\n\r\nhe\(RawOrigin.pause)llo",
            "HTTP/1.1 200 OK\r\nCache-Control: no-store\r\nContent-Length: 2\r\n\r\nok",
        ])
        defer { origin.stop() }
        try await Running.with(upstream: "http://127.0.0.1:\(origin.port)") { running in
            let (first, _) = try await running.send(.get, "/first")
            let (second, body) = try await running.send(.get, "/second")
            #expect(first.status == .ok)
            #expect(second.status == .ok, "\(second.headerFields[HTTPField.Name("Cache-Status")!] ?? "")")
            #expect(body == "ok")
        }
    }

    /// An origin that closes a connection after reading a request, without answering: an
    /// idempotent request is sent again, once, on a fresh connection; a POST is not.
    @Test func aRequestTheOriginHangsUpOnIsRetriedWhenIdempotent() async throws {
        let origin = try RawOrigin(replies: [
            RawOrigin.hangUp,
            "HTTP/1.1 200 OK\r\nCache-Control: no-store\r\nContent-Length: 2\r\n\r\nok",
            RawOrigin.hangUp,
        ])
        defer { origin.stop() }
        try await Running.with(upstream: "http://127.0.0.1:\(origin.port)") { running in
            let (got, body) = try await running.send(.get, "/again")
            #expect(got.status == .ok, "\(got.headerFields[HTTPField.Name("Cache-Status")!] ?? "")")
            #expect(body == "ok")
            let (posted, _) = try await running.send(.post, "/once")
            #expect(posted.status == .badGateway)
            #expect(origin.requestLines == ["GET /again HTTP/1.1", "GET /again HTTP/1.1", "POST /once HTTP/1.1"])
        }
    }
}
