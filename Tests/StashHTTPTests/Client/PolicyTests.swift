import Foundation
import HTTPTypes
import StashCore
import StashHTTP
import StashHTTPAsyncClient
import StashTestSupport
import Testing
import NIOCore

/// URLCache's request policies, offline fallback and statistics, through the caching client.
struct PolicyTests {
    /// A client, its cache and clock, and an origin, torn down by `close()`.
    struct Fixture {
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_700_000_000))
        let origin: TestOrigin
        let transport = AsyncHTTPClientTransport(timeout: .seconds(10))
        let cache: HTTPCache
        let client: CachingHTTPClient

        init(directory: URL? = nil) async throws {
            origin = try await TestOrigin.start(clock: clock)
            cache = try HTTPCache(memoryCapacity: 1 << 20, diskCapacity: 1 << 20, directory: directory, clock: clock)
            client = CachingHTTPClient(cache: cache, transport: transport)
        }

        func request(_ path: String) -> HTTPRequest {
            HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(origin.port)", path: path)
        }

        /// Runs `body` with a fixture, then shuts it down whether `body` threw or not (an
        /// AsyncHTTPClient left running traps when released).
        static func with(directory: URL? = nil, _ body: (Fixture) async throws -> Void) async throws {
            let fixture = try await Fixture(directory: directory)
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

    @Test func returnCacheDataDontLoadNeverTouchesTheNetwork() async throws {
        try await Fixture.with { fixture in
            fixture.origin.set("/a", .ok([("Cache-Control", "max-age=10")]))
            let empty = try await fixture.client.send(fixture.request("/a"), policy: .returnCacheDataDontLoad)
            #expect(empty.outcome == .unavailable)
            #expect(empty.response.status == .gatewayTimeout)
            _ = try await fixture.client.send(fixture.request("/a"))
            fixture.clock.advance(by: 3600)
            let stale = try await fixture.client.send(fixture.request("/a"), policy: .returnCacheDataDontLoad)
            #expect(stale.outcome == .cache)
            #expect(fixture.origin.requests("/a").count == 1)
        }
    }

    @Test func returnCacheDataElseLoadServesStaleAndLoadsMisses() async throws {
        try await Fixture.with { fixture in
            fixture.origin.set("/b", .ok([("Cache-Control", "max-age=10")]))
            let first = try await fixture.client.send(fixture.request("/b"), policy: .returnCacheDataElseLoad)
            #expect(first.outcome == .network)
            fixture.clock.advance(by: 3600)
            let stale = try await fixture.client.send(fixture.request("/b"), policy: .returnCacheDataElseLoad)
            #expect(stale.outcome == .cache)
            #expect(fixture.origin.requests("/b").count == 1)
        }
    }

    @Test func reloadPolicies() async throws {
        try await Fixture.with { fixture in
            fixture.origin.set("/c", .ok([("Cache-Control", "max-age=600"), ("ETag", "\"1\"")]))
            _ = try await fixture.client.send(fixture.request("/c"))
            #expect(try await fixture.client.send(fixture.request("/c")).outcome == .cache)
            #expect(try await fixture.client.send(fixture.request("/c"), policy: .reloadIgnoringLocalCacheData).outcome == .network)
            #expect(fixture.origin.requests("/c").last?.headerFields[.ifNoneMatch] == nil)
            fixture.origin.set("/c", .status(304, [("ETag", "\"1\"")]))
            let revalidated = try await fixture.client.send(fixture.request("/c"), policy: .reloadRevalidatingCacheData)
            #expect(revalidated.outcome == .revalidated)
            #expect(String(decoding: revalidated.body, as: UTF8.self) == "hello")
            #expect(fixture.origin.requests("/c").count == 3)
        }
    }

    @Test func offlineServesStaleWhereAllowed() async throws {
        try await Fixture.with { fixture in
            fixture.origin.set("/d", .ok([("Cache-Control", "max-age=10")], body: "cached"))
            fixture.origin.set("/e", .ok([("Cache-Control", "max-age=10, must-revalidate")]))
            _ = try await fixture.client.send(fixture.request("/d"))
            _ = try await fixture.client.send(fixture.request("/e"))
            fixture.clock.advance(by: 60)
            fixture.origin.set("/d", .disconnect)
            fixture.origin.set("/e", .disconnect)
            let offline = try await fixture.client.send(fixture.request("/d"))
            #expect(offline.outcome == .staleAfterNetworkFailure)
            #expect(String(decoding: offline.body, as: UTF8.self) == "cached")
            await #expect(throws: (any Error).self) { try await fixture.client.send(fixture.request("/e")) }
            #expect(fixture.cache.statistics.staleServed == 1)
        }
    }

    @Test func statisticsCountHitsMissesRevalidationsAndBytes() async throws {
        try await Fixture.with { fixture in
            fixture.origin.set("/f", .ok([("Cache-Control", "max-age=10"), ("ETag", "\"1\"")], body: "12345"))
            _ = try await fixture.client.send(fixture.request("/f"))
            _ = try await fixture.client.send(fixture.request("/f"))
            fixture.clock.advance(by: 60)
            fixture.origin.set("/f", .status(304, [("ETag", "\"1\""), ("Cache-Control", "max-age=10")]))
            #expect(try await fixture.client.send(fixture.request("/f")).outcome == .revalidated)
            let stats = fixture.cache.statistics
            #expect(stats.misses == 1)
            #expect(stats.hits == 1)
            #expect(stats.revalidations == 1)
            #expect(stats.bytesSaved == 10)
        }
    }

    @Test func storedResponsesSurviveReopening() async throws {
        let folder = TemporaryFolder()
        try await Fixture.with(directory: folder.url) { fixture in
            fixture.origin.set("/g", .ok([("Cache-Control", "max-age=600")], body: "persisted"))
            _ = try await fixture.client.send(fixture.request("/g"))
            try fixture.cache.close()
            let reopened = try HTTPCache(directory: folder.url, clock: fixture.clock)
            let hit = try #require(reopened.cachedResponse(for: fixture.request("/g")))
            #expect(String(decoding: hit.body, as: UTF8.self) == "persisted")
            #expect(reopened.currentDiskUsage > 0)
            try reopened.close()
        }
    }

    @Test func urlSessionTransportBypassesFoundationCaching() async throws {
        try await Fixture.with { fixture in
            let client = CachingHTTPClient(cache: fixture.cache, transport: URLSessionTransport(timeout: 10))
            fixture.origin.set("/h", .ok([("Cache-Control", "max-age=600")], body: "via urlsession"))
            let first = try await client.send(fixture.request("/h"))
            let second = try await client.send(fixture.request("/h"))
            #expect(first.outcome == .network)
            #expect(second.outcome == .cache)
            #expect(String(decoding: second.body, as: UTF8.self) == "via urlsession")
            #expect(fixture.origin.requests("/h").count == 1)
        }
    }
}
