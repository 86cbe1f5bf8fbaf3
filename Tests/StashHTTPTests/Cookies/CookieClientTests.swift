import Foundation
import HTTPTypes
import StashCore
@testable import StashHTTP
import StashHTTPAsyncClient
import StashTestSupport
import Testing
import NIOCore

/// `CachingHTTPClient` with a jar, against a real loopback origin.
struct CookieClientTests {
    struct Fixture {
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_700_000_000))
        let origin: TestOrigin
        let transport = AsyncHTTPClientTransport(timeout: .seconds(10))
        let cache: HTTPCache
        let jar: CookieJar
        let client: CachingHTTPClient

        init() async throws {
            origin = try await TestOrigin.start(clock: clock)
            cache = try HTTPCache(memoryCapacity: 1 << 20, diskCapacity: 1 << 20, directory: nil, clock: clock)
            var configuration = CookieJar.Configuration()
            configuration.clock = clock
            jar = CookieJar(inMemory: configuration)
            client = CachingHTTPClient(cache: cache, transport: transport, cookieJar: jar)
        }

        func request(_ path: String) -> HTTPRequest {
            HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(origin.port)", path: path)
        }

        func cookieSent(_ path: String, _ index: Int) -> String? {
            origin.requests(path)[index].headerFields[.cookie]
        }

        /// Runs `body` with a fixture, then shuts it down whether `body` threw or not (an
        /// AsyncHTTPClient left running traps when released).
        static func with(_ body: (Fixture) async throws -> Void) async throws {
            let fixture = try await Fixture()
            do {
                try await body(fixture)
            } catch {
                try? await fixture.close()
                throw error
            }
            try await fixture.close()
        }

        func close() async throws {
            origin.stop()
            try await transport.shutdown()
        }
    }

    @Test func storesSetCookieAndSendsItBack() async throws {
        try await Fixture.with { fixture in
            fixture.origin.set("/login", .ok([("Set-Cookie", "session=abc; Path=/; HttpOnly"), ("Set-Cookie", "theme=dark; Max-Age=600")]))
            fixture.origin.set("/account/page", .ok([("Cache-Control", "no-store")]))
            _ = try await fixture.client.send(fixture.request("/login"))
            #expect(fixture.cookieSent("/login", 0) == nil)
            _ = try await fixture.client.send(fixture.request("/account/page"))
            #expect(fixture.cookieSent("/account/page", 0) == "session=abc; theme=dark")
        }
    }

    @Test func revalidationsStoreTheirSetCookie() async throws {
        try await Fixture.with { fixture in
            fixture.origin.set("/feed", .ok([("Cache-Control", "max-age=10"), ("ETag", "\"1\"")]))
            _ = try await fixture.client.send(fixture.request("/feed"))
            fixture.clock.advance(by: 60)
            fixture.origin.set("/feed", TestOrigin.Reply(status: 304, fields: [("Cache-Control", "max-age=10"), ("ETag", "\"1\""), ("Set-Cookie", "seen=2; Max-Age=600")]))
            let answer = try await fixture.client.send(fixture.request("/feed"))
            #expect(answer.outcome == .revalidated)
            #expect(fixture.origin.requests("/feed")[1].headerFields[.ifNoneMatch] == "\"1\"")
            #expect(fixture.jar.cookies().map(\.value) == ["2"])
        }
    }

    @Test func cachedResponsesNeverReplayTheirSetCookie() async throws {
        try await Fixture.with { fixture in
            fixture.origin.set("/page", .ok([("Cache-Control", "max-age=600"), ("Set-Cookie", "visit=1; Max-Age=600")]))
            _ = try await fixture.client.send(fixture.request("/page"))
            #expect(fixture.jar.count == 1)
            try fixture.jar.removeAll()
            let hit = try await fixture.client.send(fixture.request("/page"))
            #expect(hit.outcome == .cache)
            #expect(fixture.origin.requests("/page").count == 1)
            #expect(fixture.jar.count == 0)
        }
    }

    @Test func varyCookieSeesTheJarsCookies() async throws {
        try await Fixture.with { fixture in
            fixture.origin.set("/me", .ok([("Cache-Control", "max-age=600"), ("Vary", "Cookie")], body: "anonymous"))
            #expect(String(decoding: try await fixture.client.send(fixture.request("/me")).body, as: UTF8.self) == "anonymous")
            try fixture.jar.setCookie("user=ann", for: URL(string: "http://127.0.0.1:\(fixture.origin.port)/")!)
            fixture.origin.set("/me", .ok([("Cache-Control", "max-age=600"), ("Vary", "Cookie")], body: "ann"))
            let answer = try await fixture.client.send(fixture.request("/me"))
            #expect(answer.outcome == .network)
            #expect(String(decoding: answer.body, as: UTF8.self) == "ann")
            #expect(fixture.cookieSent("/me", 1) == "user=ann")
        }
    }

    @Test func aClientWithoutAJarSendsNoCookies() async throws {
        try await Fixture.with { fixture in
            let plain = CachingHTTPClient(cache: fixture.cache, transport: fixture.transport)
            fixture.origin.set("/x", .ok([("Set-Cookie", "a=1")]))
            _ = try await plain.send(fixture.request("/x"))
            _ = try await plain.send(fixture.request("/x"))
            #expect(fixture.cookieSent("/x", 1) == nil)
            #expect(fixture.jar.count == 0)
        }
    }
}
