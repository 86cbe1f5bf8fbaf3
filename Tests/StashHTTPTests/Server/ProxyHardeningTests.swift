import Foundation
import HTTPTypes
import StashCore
import StashHTTP
import AsyncHTTPClient
import StashTestSupport
import Testing
@testable import StashHTTPServer

/// What the proxy refuses and how it reports upstream failures.
struct ProxyHardeningTests {
    @Test(arguments: [
        "/../etc/passwd", "/a/../../b", "/%2e%2e/x", "/%2E%2e/x", "/a/..", "/a/./b", "/.", "/..%2fx", "/a%2f..%2fb", "/a\\..\\b",
        // Path parameters: Tomcat, Jetty and Spring read `..;x` as `..`.
        "/..;/manager/html", "/%2e%2e;/x", "/a/..;jsessionid=1/b", "/.;x/y", "/..%3bx/y", "/a/..;",
        // Escapes of escapes, which an origin decoding twice reads as `.`, `/`, `;` or `%`.
        "/%252e%252e/x", "/a%252fb", "/%252E/x", "/a/%253b", "/%2525/x",
        // An encoded NUL, where C origins stop reading.
        "/a%00.html",
    ])
    func climbingTargetsAreDetected(_ target: String) {
        #expect(RequestTarget.refusal(target) != nil)
    }

    @Test(arguments: [
        "/", "/a/b", "/a..b/c", "/...", "/.hidden", "/a/b?x=/../", "/a.%2e.b", "/%2", "/%", "/a;b/c", "/;../x", "/a;v=1.2/b",
        "/100%25", "/a%20b", "/%25zz", "/q?x=%252e%252e",
    ])
    func ordinaryTargetsPass(_ target: String) {
        #expect(RequestTarget.refusal(target) == nil)
    }

    /// Targets with dot segments get `400` and never reach the origin.
    @Test func dotSegmentsAreRefusedWithoutForwarding() async throws {
        try await ProxyTests.Running.with { running in
            running.origin.set("/secret", .ok([("Cache-Control", "max-age=60")]))
            for target in ["/public/../secret", "/public/%2e%2e/secret", "/a/../../secret"] {
                let request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(running.port)", path: target)
                let (response, body) = await running.proxy.respond(to: request, body: Data())
                #expect(response.status == .badRequest)
                #expect(String(decoding: body, as: UTF8.self) == "bad request\n")
            }
            #expect(running.origin.requests("/secret").isEmpty)
            #expect(running.origin.requests("/public").isEmpty)
        }
    }

    /// `502` says "bad gateway" and nothing of internal types; `Cache-Status` names the cause.
    @Test func badGatewayNamesTheCauseOnlyInCacheStatus() async throws {
        try await ProxyTests.Running.with(upstream: "http://127.0.0.1:9") { running in
            let (response, body) = try await running.send(.get, "/nowhere")
            #expect(response.status == .badGateway || response.status == .gatewayTimeout)
            #expect(body == "bad gateway\n" || body == "gateway timeout\n")
            let status = try #require(response.headerFields[HTTPField.Name("Cache-Status")!])
            #expect(status.hasPrefix("stash; fwd=miss; detail=\"upstream"))
        }
    }

    /// A response whose body the origin cuts short reaches the origin once (it is not retried
    /// as if the pooled connection were spoiled): the client gets the head and the bytes the
    /// origin sent, then the connection closes before the announced length.
    @Test func responseCutShortIsNotRetried() async throws {
        let origin = try RawOrigin(replies: [
            "HTTP/1.1 200 OK\r\nCache-Control: max-age=600\r\nContent-Length: 100\r\n\r\nonly part\(RawOrigin.hangUp)",
        ])
        defer { origin.stop() }
        try await ProxyTests.Running.with(upstream: "http://127.0.0.1:\(origin.port)") { running in
            await #expect(throws: (any Error).self) { try await running.send(.get, "/cut") }
            #expect(origin.requestLines == ["GET /cut HTTP/1.1"])
        }
    }

    /// A timeout is `504 Gateway Timeout`.
    @Test func upstreamTimeoutIsGatewayTimeout() {
        let failure = UpstreamFailure(HTTPClientError.readTimeout)
        #expect(failure.status == .gatewayTimeout)
        let (response, body) = failure.response(method: .get)
        #expect(response.status == .gatewayTimeout && body == Data("gateway timeout\n".utf8))
        #expect(failure.response(method: .head).1.isEmpty)
    }
}
