import Foundation
import HTTPTypes
import StashCore
import StashHTTPAsyncClient
import Testing
import NIOCore
@testable import StashHTTP

/// HEAD responses update stored GET responses (RFC 9111 §4.3.5), POST responses naming their
/// own URI in `Content-Location` answer later GETs (RFC 9110 §9.3.3), and a fresh response
/// without `Last-Modified` answers `If-Modified-Since` with `304`.
struct HTTPCacheOtherMethodsTests {
    struct Setup {
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_700_000_000))
        let origin: TestOrigin
        let cache: HTTPCache
        let transport = AsyncHTTPClientTransport(timeout: .seconds(10))
        let client: CachingHTTPClient

        init() async throws {
            origin = try await TestOrigin.start(clock: clock)
            cache = try HTTPCache(diskCapacity: 0, clock: clock)
            client = CachingHTTPClient(cache: cache, transport: transport)
        }

        func request(_ method: HTTPRequest.Method, _ path: String, _ fields: [(HTTPField.Name, String)] = []) -> HTTPRequest {
            var request = HTTPRequest(method: method, scheme: "http", authority: "127.0.0.1:\(origin.port)", path: path)
            for (name, value) in fields { request.headerFields[name] = value }
            return request
        }

        func stop() async throws {
            try await transport.shutdown()
            origin.stop()
        }
    }

    @Test func headWithSameValidatorsFreshensTheStoredGet() async throws {
        let setup = try await Setup()
        setup.origin.set("/doc", .ok([("Cache-Control", "max-age=10"), ("ETag", "\"v1\""), ("X-Version", "1")], body: "content"))
        _ = try await setup.client.send(setup.request(.get, "/doc"))
        setup.clock.advance(by: 20)
        setup.origin.set("/doc", .ok([("Cache-Control", "max-age=100"), ("ETag", "\"v1\""), ("X-Version", "2")], body: "content"))
        let head = try await setup.client.send(setup.request(.head, "/doc"))
        #expect(head.response.status == .ok)
        let hit = try #require(setup.cache.cachedResponse(for: setup.request(.get, "/doc")))
        #expect(hit.response.headerFields[HTTPField.Name("X-Version")!] == "2")
        #expect(String(decoding: hit.body, as: UTF8.self) == "content")
        #expect(setup.origin.requests("/doc").count == 2)
        try await setup.stop()
    }

    @Test func headWithOtherValidatorsDiscardsTheStoredGet() async throws {
        let setup = try await Setup()
        setup.origin.set("/doc", .ok([("Cache-Control", "max-age=10"), ("ETag", "\"v1\"")], body: "content"))
        _ = try await setup.client.send(setup.request(.get, "/doc"))
        setup.clock.advance(by: 20)
        setup.origin.set("/doc", .ok([("Cache-Control", "max-age=100"), ("ETag", "\"v2\"")], body: "changed"))
        _ = try await setup.client.send(setup.request(.head, "/doc"))
        #expect(setup.cache.cachedResponse(for: setup.request(.get, "/doc")) == nil)
        let fetched = try await setup.client.send(setup.request(.get, "/doc"))
        #expect(fetched.outcome == .network)
        #expect(String(decoding: fetched.body, as: UTF8.self) == "changed")
        try await setup.stop()
    }

    @Test func postNamingItsOwnURIAnswersALaterGet() async throws {
        let setup = try await Setup()
        let location = "http://127.0.0.1:\(setup.origin.port)/item"
        setup.origin.set("/item", .ok([("Cache-Control", "max-age=60"), ("Content-Location", location)], body: "posted"))
        _ = try await setup.client.send(setup.request(.post, "/item"), body: Data("x".utf8))
        let later = try await setup.client.send(setup.request(.get, "/item"))
        #expect(later.outcome == .cache)
        #expect(String(decoding: later.body, as: UTF8.self) == "posted")
        #expect(setup.origin.requests("/item").count == 1)

        // Without explicit freshness, or naming another URI, nothing is stored.
        setup.origin.set("/other", .ok([("Content-Location", "/other")], body: "posted"))
        _ = try await setup.client.send(setup.request(.post, "/other"), body: Data("x".utf8))
        setup.origin.set("/elsewhere", .ok([("Cache-Control", "max-age=60"), ("Content-Location", "/somewhere-else")], body: "posted"))
        _ = try await setup.client.send(setup.request(.post, "/elsewhere"), body: Data("x".utf8))
        #expect(setup.cache.cachedResponse(for: setup.request(.get, "/other")) == nil)
        #expect(setup.cache.cachedResponse(for: setup.request(.get, "/elsewhere")) == nil)
        try await setup.stop()
    }

    @Test func ifModifiedSinceWithoutLastModifiedGets304() throws {
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_700_000_000))
        let cache = try HTTPCache(diskCapacity: 0, clock: clock)
        let request = HTTPRequest(method: .get, scheme: "https", authority: "example.com", path: "/fresh")
        #expect(cache.storeResponse(HTTPResponse(status: .ok, headerFields: [.cacheControl: "max-age=600"]), body: Data("x".utf8), for: request))
        var conditional = request
        conditional.headerFields[.ifModifiedSince] = HTTPDate.format(clock.now.addingTimeInterval(1))
        #expect(cache.cachedResponse(for: conditional)?.response.status == .notModified)
        conditional.headerFields[.ifModifiedSince] = HTTPDate.format(clock.now.addingTimeInterval(-60))
        #expect(cache.cachedResponse(for: conditional)?.response.status == .ok)
    }
}
