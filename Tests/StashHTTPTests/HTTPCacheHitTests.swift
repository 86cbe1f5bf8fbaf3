import Foundation
import HTTPTypes
import StashCore
import StashTestSupport
import Testing
@testable import StashHTTP

/// `HTTPCache.freshHit(for:)`, the synchronous lookup a server makes on its event loop: the
/// same rules as every lookup, fresh responses in memory only, and the prepared form kept
/// with the stored response.
struct HTTPCacheHitTests {
    let clock = ManualClock(now: Date(timeIntervalSince1970: 1_700_000_000))

    static func request(_ method: HTTPRequest.Method = .get, _ fields: HTTPFields = [:]) -> HTTPRequest {
        HTTPRequest(method: method, scheme: "http", authority: "example.com", path: "/page", headerFields: fields)
    }

    static let response = HTTPResponse(
        status: .ok, headerFields: [.cacheControl: "max-age=60", .vary: "Accept-Language", .eTag: "\"v1\""]
    )

    @Test func freshHitFollowsTheLookupRules() throws {
        let cache = try HTTPCache(diskCapacity: 0, mode: .shared, clock: clock)
        let english = Self.request(.get, [.acceptLanguage: "en"])
        #expect(cache.storeResponse(Self.response, body: Data("hello".utf8), for: english))
        clock.advance(by: 30)
        let hit = try #require(cache.freshHit(for: english))
        #expect(hit.age == "30")
        #expect(hit.answer().response == cache.cachedResponse(for: english)?.response)
        #expect(hit.answer().body == Data("hello".utf8))
        #expect(cache.freshHit(for: Self.request(.head, [.acceptLanguage: "en"]))?.answer().body == Data())
        #expect(cache.statistics.hits == 2)

        // Another variant, other methods, conditionals and ranges: not the stored response as it is.
        #expect(cache.freshHit(for: Self.request(.get, [.acceptLanguage: "fr"])) == nil)
        #expect(cache.freshHit(for: Self.request(.post, [.acceptLanguage: "en"])) == nil)
        for (name, value) in [(HTTPField.Name.ifNoneMatch, "\"v1\""), (.range, "bytes=0-1"), (.ifModifiedSince, "Tue, 14 Nov 2023 22:13:20 GMT")] {
            #expect(cache.freshHit(for: Self.request(.get, [.acceptLanguage: "en", name: value])) == nil)
        }
        // A request directive the stored response does not satisfy.
        #expect(cache.freshHit(for: Self.request(.get, [.acceptLanguage: "en", .cacheControl: "max-age=10"])) == nil)

        // Stale: only the full flow may serve it, even to a request that accepts it.
        clock.advance(by: 31)
        let acceptsStale = Self.request(.get, [.acceptLanguage: "en", .cacheControl: "max-stale"])
        #expect(cache.cachedResponse(for: acceptsStale) != nil)
        #expect(cache.freshHit(for: acceptsStale) == nil)
        #expect(cache.freshHit(for: english) == nil)
    }

    /// `cachedResponse(for:)` answers a request without conditionals, `Range`,
    /// `Cache-Control` or `Pragma` without reading those fields; each of them, in any
    /// spelling, still changes the answer.
    @Test func cachedResponseWeighsEachFieldThatChangesItsAnswer() throws {
        let cache = try HTTPCache(diskCapacity: 0, clock: clock)
        let english = Self.request(.get, [.acceptLanguage: "en"])
        #expect(cache.storeResponse(Self.response, body: Data("hello".utf8), for: english))
        clock.advance(by: 30)
        func answer(_ fields: HTTPFields, _ method: HTTPRequest.Method = .get) -> CachedHTTPResponse? {
            var all: HTTPFields = [.acceptLanguage: "en"]
            all.append(contentsOf: fields)
            return cache.cachedResponse(for: Self.request(method, all))
        }
        let plain = try #require(answer([:]))
        #expect(plain.response.status == .ok && plain.body == Data("hello".utf8))
        #expect(plain.response.headerFields[.age] == "30" && plain.response.headerFields[.contentLength] == "5")
        let head = try #require(answer([:], .head))
        #expect(head.response.status == .ok && head.body.isEmpty)
        #expect(cache.cachedResponse(for: Self.request(.get, [.acceptLanguage: "fr"])) == nil)

        let later = HTTPDate.format(clock.now)
        for name in ["If-None-Match", "if-none-match"] {
            #expect(answer(HTTPFields([HTTPField(name: HTTPField.Name(name)!, value: "\"v1\"")]))?.response.status == .notModified)
        }
        #expect(answer([.ifModifiedSince: later])?.response.status == .notModified)
        #expect(answer(HTTPFields([HTTPField(name: HTTPField.Name("RANGE")!, value: "bytes=1-2")]))?.body == Data("el".utf8))
        #expect(answer([.range: "bytes=1-2", .ifRange: "\"v0\""])?.response.status == .ok)
        #expect(answer([.range: "bytes=9-"])?.response.status == .rangeNotSatisfiable)
        #expect(answer(HTTPFields([HTTPField(name: HTTPField.Name("cache-control")!, value: "max-age=10")])) == nil)
        #expect(answer([.pragma: "no-cache"]) == nil)
        #expect(answer([.cacheControl: "max-age=40"])?.response.status == .ok)
    }

    @Test func removalIsSeenAtOnce() throws {
        let cache = try HTTPCache(diskCapacity: 0, mode: .shared, clock: clock)
        #expect(cache.storeResponse(Self.response, body: Data("hello".utf8), for: Self.request()))
        #expect(cache.freshHit(for: Self.request()) != nil)
        cache.removeResponses(for: Self.request())
        #expect(cache.freshHit(for: Self.request()) == nil)
    }

    /// A response only the disk holds is no event-loop hit (that would read a file on the
    /// event loop) until a lookup of the full flow has brought it into memory.
    @Test func responsesOnDiskOnlyAreNotHitsUntilLoaded() async throws {
        let folder = TemporaryFolder("http-fresh-hit")
        let directory = folder.file("cache")
        do {
            let cache = try HTTPCache(directory: directory, clock: clock)
            #expect(cache.storeResponse(Self.response, body: Data("hello".utf8), for: Self.request()))
            try await cache.flush()
            try cache.close()
        }
        let reopened = try HTTPCache(directory: directory, clock: clock)
        defer { try? reopened.close() }
        #expect(reopened.freshHit(for: Self.request()) == nil)
        #expect(reopened.cachedResponse(for: Self.request()) != nil)
        #expect(reopened.freshHit(for: Self.request()) != nil)
    }

    final class Form: Sendable {}

    /// The prepared form is made once per stored response and made again once the response
    /// is replaced or freshened.
    @Test func preparedFormIsKeptUntilTheResponseChanges() throws {
        let cache = try HTTPCache(diskCapacity: 0, mode: .shared, clock: clock)
        #expect(cache.storeResponse(Self.response, body: Data("hello".utf8), for: Self.request()))
        let first = try #require(cache.freshHit(for: Self.request())).prepared { Form() }
        let again = try #require(cache.freshHit(for: Self.request())).prepared { Form() }
        #expect(first === again)
        #expect(cache.storeResponse(Self.response, body: Data("hello again".utf8), for: Self.request()))
        let replaced = try #require(cache.freshHit(for: Self.request())).prepared { Form() }
        #expect(replaced !== first)

        let key = try #require(PrimaryCacheKey(Self.request()))
        var stored = try #require(cache.localVariants(for: key).first)
        #expect(stored.prepared { Form() } === replaced)
        stored.headerFields[.cacheControl] = "max-age=600"
        let afterFields = stored.prepared { Form() }
        #expect(afterFields !== replaced)
        stored.body = Data()
        #expect(stored.prepared { Form() } !== afterFields)
    }

    @Test func statisticsGiveTheHitRatioAsEveryCacheDoes() {
        var statistics = HTTPCache.Statistics()
        #expect(statistics.hitRatio == nil)
        statistics.hits = 3
        statistics.misses = 1
        #expect(statistics.hitRatio == 0.75)
    }
}
