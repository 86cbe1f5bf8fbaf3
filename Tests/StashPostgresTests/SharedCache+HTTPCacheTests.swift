import Foundation
import HTTPTypes
import PostgresNIO
import StashCore
import StashHTTP
import StashPostgres
import StashPostgresHTTP
import Testing

/// Two `HTTPCache`s, each on its own connection pool (as two processes would be), storing
/// their responses in one PostgreSQL table, in front of a real origin on 127.0.0.1.
@Suite(.enabled(if: TestPostgres.enabled, TestPostgres.skipReason))
struct SharedCacheHTTPCacheTests {
    /// Runs `body` with caches A and B on one fresh table, a shared manual clock and an origin.
    private func withTwoCaches(
        configure: @Sendable @escaping (inout SharedCache.Configuration) -> Void = { _ in },
        _ body: @Sendable (_ a: HTTPCache, _ b: HTTPCache, _ storage: SharedCache, _ clock: ManualClock, _ origin: CountingOrigin) async throws -> Void
    ) async throws {
        let origin = try await CountingOrigin.start()
        defer { origin.stop() }
        try await TestPostgres.withSchema { url, schema, first in
            try await TestPostgres.withClient(url: url, schema: schema) { second in
                var configuration = TestPostgres.configuration
                configure(&configuration)
                let storageA = SharedCache(client: first, configuration: configuration)
                let storageB = SharedCache(client: second, configuration: configuration)
                try await storageA.migrate()
                let clock = ManualClock()
                let a = HTTPCache(sharedStorage: storageA, clock: clock)
                let b = HTTPCache(sharedStorage: storageB, clock: clock)
                try await body(a, b, storageA, clock, origin)
            }
        }
    }

    private func request(_ origin: CountingOrigin, _ path: String, method: HTTPRequest.Method = .get, _ fields: [HTTPField] = []) -> HTTPRequest {
        var request = HTTPRequest(method: method, scheme: "http", authority: "127.0.0.1:\(origin.port)", path: path)
        for field in fields { request.headerFields.append(field) }
        return request
    }

    private func send(_ cache: HTTPCache, _ request: HTTPRequest) async throws -> (CachedHTTPResponse, String) {
        let transport = URLSessionTransport(timeout: 20)
        let answer = try await cache.respond(to: request) { request, body in try await transport.send(request, body: body) }
        return (answer, String(decoding: answer.body, as: UTF8.self))
    }

    @Test func aResponseStoredThroughOneCacheIsAHitOnTheOtherWithItsAge() async throws {
        try await withTwoCaches { a, b, storage, clock, origin in
            let (first, firstBody) = try await send(a, request(origin, "/aged/page"))
            #expect(first.outcome == .network)
            #expect(firstBody == "/aged/page #1")
            // The miss read the storage once (the lookup) and wrote once, starting from what
            // the lookup read.
            let trips = storage.statistics
            #expect(trips.hits + trips.misses == 1 && trips.writes == 1, "\(trips)")
            clock.advance(by: 40)
            let (second, secondBody) = try await send(b, request(origin, "/aged/page"))
            #expect(second.outcome == .cache)
            #expect(secondBody == "/aged/page #1")
            // 30 s the origin's upstream held it, 40 s resident; the origin's `Date` has
            // one-second resolution, so the apparent age may add one.
            let age = Int(second.response.headerFields[.age] ?? "") ?? -1
            #expect((70...71).contains(age), "Age \(age)")
            #expect(origin.count("GET /aged/page") == 1)
            #expect(a.statistics.misses == 1 && b.statistics.hits == 1)
        }
    }

    /// A miss that found other variants of its URL reads them again before it stores: an
    /// invalidation made by another instance during the trip to the origin stays made.
    @Test func anInvalidationDuringAMissIsNotUndoneByItsStore() async throws {
        try await withTwoCaches { a, b, _, _, origin in
            let english = [HTTPField(name: .acceptLanguage, value: "en")]
            let german = [HTTPField(name: .acceptLanguage, value: "de")]
            _ = try await send(a, request(origin, "/vary/gone", english))
            let whole = request(origin, "/vary/gone")
            let transport = URLSessionTransport(timeout: 20)
            let miss = try await a.respond(to: request(origin, "/vary/gone", german)) { request, body in
                b.removeResponses(for: whole)
                try await b.flush()
                return try await transport.send(request, body: body)
            }
            #expect(miss.outcome == .network)
            let (again, _) = try await send(b, request(origin, "/vary/gone", english))
            #expect(again.outcome == .network, "the English variant B removed came back")
            #expect(try await send(b, request(origin, "/vary/gone", german)).0.outcome == .cache)
        }
    }

    @Test func variantsSelectedByVaryWorkAcrossCaches() async throws {
        try await withTwoCaches { a, b, _, _, origin in
            let english = [HTTPField(name: .acceptLanguage, value: "en")]
            let german = [HTTPField(name: .acceptLanguage, value: "de")]
            _ = try await send(a, request(origin, "/vary/x", english))
            _ = try await send(b, request(origin, "/vary/x", german))
            let (en, enBody) = try await send(b, request(origin, "/vary/x", english))
            let (de, deBody) = try await send(a, request(origin, "/vary/x", german))
            #expect(en.outcome == .cache && enBody == "/vary/x #1 en")
            #expect(de.outcome == .cache && deBody == "/vary/x #2 de")
            let (_, frenchBody) = try await send(a, request(origin, "/vary/x", [HTTPField(name: .acceptLanguage, value: "fr")]))
            #expect(frenchBody == "/vary/x #3 fr")
            #expect(origin.count("GET /vary/x") == 3)
        }
    }

    @Test(arguments: [HTTPRequest.Method.post, .put, .delete])
    func anUnsafeMethodThroughOneCacheInvalidatesForTheOther(_ method: HTTPRequest.Method) async throws {
        try await withTwoCaches { a, b, _, _, origin in
            _ = try await send(a, request(origin, "/vary/doc", [HTTPField(name: .acceptLanguage, value: "en")]))
            _ = try await send(a, request(origin, "/vary/doc", [HTTPField(name: .acceptLanguage, value: "de")]))
            #expect(try await send(a, request(origin, "/vary/doc", [HTTPField(name: .acceptLanguage, value: "en")])).0.outcome == .cache)
            let (changed, _) = try await send(b, request(origin, "/vary/doc", method: method))
            #expect(changed.outcome == .network)
            for language in ["en", "de"] {
                let (answer, body) = try await send(a, request(origin, "/vary/doc", [HTTPField(name: .acceptLanguage, value: language)]))
                #expect(answer.outcome == .network, "\(language) was still served from the cache after \(method)")
                #expect(body.hasSuffix(language))
            }
            #expect(origin.count("GET /vary/doc") == 4)
            #expect(origin.count("\(method.rawValue) /vary/doc") == 1)
        }
    }

    @Test func aURLLongerThanTheKeyLimitIsStoredUnderItsDigest() async throws {
        try await withTwoCaches { a, b, storage, _, origin in
            let path = "/long?" + String(repeating: "q", count: 3000)
            _ = try await send(a, request(origin, path))
            let (hit, body) = try await send(b, request(origin, path))
            #expect(hit.outcome == .cache)
            #expect(body == "\(path) #1")
            #expect(storage.statistics.errors == 0)
        }
    }

    @Test func aResponseTheStorageRefusesLeavesNoOlderCopyBehind() async throws {
        try await withTwoCaches(configure: { $0.valueSizeLimit = 600 }) { a, b, _, clock, origin in
            let key = request(origin, "/grows")
            #expect(a.storeResponse(Self.response(maxAge: 10), body: Data("small".utf8), for: key))
            try await a.flush()
            #expect(try await send(b, key).0.outcome == .cache)
            clock.advance(by: 20)
            // Stale now, fetched again; the new body is over the storage's value limit.
            #expect(a.storeResponse(Self.response(maxAge: 300), body: Data(repeating: 65, count: 2000), for: key))
            try await a.flush()
            let (answer, body) = try await send(b, key)
            #expect(answer.outcome == .network)
            #expect(body == "/grows #1")
        }
    }

    @Test func theSynchronousAPIWritesInTheBackgroundAndLooksNothingUp() async throws {
        try await withTwoCaches { a, b, _, _, origin in
            let key = request(origin, "/direct")
            #expect(a.storeResponse(Self.response(maxAge: 60), body: Data("stored directly".utf8), for: key))
            try await a.flush()
            // Not looked up synchronously: the storage is across the network.
            #expect(b.cachedResponse(for: key) == nil)
            var onlyIfCached = key
            onlyIfCached.headerFields[.cacheControl] = "only-if-cached"
            let (hit, body) = try await send(b, onlyIfCached)
            #expect(hit.outcome == .cache && body == "stored directly")
            b.removeResponses(for: key)
            try await b.flush()
            #expect(try await send(a, onlyIfCached).0.response.status == .gatewayTimeout)
            #expect(origin.total == 0)
        }
    }

    /// A proxy's event-loop hit path finds nothing with shared storage: another instance may
    /// have invalidated what this one last saw, so every hit takes the storage.
    @Test func noEventLoopHitsWithSharedStorage() async throws {
        try await withTwoCaches { a, _, _, _, origin in
            let key = request(origin, "/hot")
            _ = try await send(a, key)
            #expect(try await send(a, key).0.outcome == .cache)
            #expect(a.freshHit(for: key) == nil)
        }
    }

    @Test func removingAllResponsesRemovesTheResponsesOnlyOfEveryCache() async throws {
        try await withTwoCaches { a, b, storage, _, origin in
            try await storage.set(Data("a session".utf8), forKey: "session/1")
            _ = try await send(a, request(origin, "/one"))
            try await b.removeAll()
            #expect(try await send(a, request(origin, "/one")).0.outcome == .network)
            #expect(origin.count("GET /one") == 2)
            #expect(try await storage.value(forKey: "session/1") == Data("a session".utf8))
        }
    }

    private static func response(maxAge: Int) -> HTTPResponse {
        var fields = HTTPFields()
        fields[.cacheControl] = "max-age=\(maxAge)"
        return HTTPResponse(status: .ok, headerFields: fields)
    }
}
