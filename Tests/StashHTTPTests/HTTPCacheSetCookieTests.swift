import Foundation
import HTTPTypes
import NIOCore
import StashCache
import StashCore
import StashHTTPAsyncClient
import StashTestSupport
import Testing
@testable import StashHTTP

/// A response that sets a cookie is not replayed to other clients by a shared cache: not
/// stored by default, stored without its `Set-Cookie` when the cache is told to (or the
/// origin names the field in `private="…"`), while a private cache stores and replays it.
/// A real origin on 127.0.0.1 counts the requests.
struct HTTPCacheSetCookieTests {
    static let cookie = "session=abc; Path=/; HttpOnly"

    /// Sends `GET path` twice through a cache made by `makeCache` (the origin answers
    /// `max-age=300` with `Set-Cookie` and `extraFields`), and returns both answers, how
    /// many requests reached the origin, the cache and the request's storage key.
    private func twice(
        _ path: String, extraFields: [(String, String)] = [],
        _ makeCache: (ManualClock) throws -> HTTPCache
    ) async throws -> (first: CachedHTTPResponse, second: CachedHTTPResponse, originRequests: Int, cache: HTTPCache, key: String) {
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_700_000_000))
        let origin = try await TestOrigin.start(clock: clock)
        let transport = AsyncHTTPClientTransport(timeout: .seconds(10))
        let cache = try makeCache(clock)
        origin.set(path, .ok([("Cache-Control", "max-age=300"), ("Set-Cookie", Self.cookie)] + extraFields, body: "content"))
        let request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(origin.port)", path: path)
        let send: HTTPSend = { request, body in try await transport.send(request, body: body) }
        do {
            let first = try await cache.respond(to: request, send: send)
            clock.advance(by: 10)
            let second = try await cache.respond(to: request, send: send)
            try await transport.shutdown()
            origin.stop()
            return (first, second, origin.requests(path).count, cache, PrimaryCacheKey(request)?.storageKey ?? "")
        } catch {
            try? await transport.shutdown()
            origin.stop()
            throw error
        }
    }

    @Test func aSharedCacheDoesNotStoreAResponseThatSetsACookie() async throws {
        let (first, second, count, _, _) = try await twice("/shared-default") { clock in
            try HTTPCache(diskCapacity: 0, mode: .shared, clock: clock)
        }
        #expect(first.outcome == .network)
        #expect(first.response.headerFields[.setCookie] == Self.cookie)
        #expect(second.outcome == .network)
        #expect(count == 2)
    }

    @Test func aSharedCacheToldToStoresItWithoutTheCookie() async throws {
        let (first, second, count, _, _) = try await twice("/shared-option") { clock in
            try HTTPCache(diskCapacity: 0, mode: .shared, storesResponsesThatSetCookies: true, clock: clock)
        }
        #expect(first.outcome == .network)
        #expect(first.response.headerFields[.setCookie] == Self.cookie)
        #expect(second.outcome == .cache)
        #expect(second.response.headerFields[.setCookie] == nil)
        #expect(String(decoding: second.body, as: UTF8.self) == "content")
        #expect(count == 1)
    }

    /// The same on a folder: what the disk holds has no `Set-Cookie` either.
    @Test func aSharedCacheOnDiskStoresNoCookie() async throws {
        let folder = TemporaryFolder("http-set-cookie")
        let (_, second, count, cache, key) = try await twice("/shared-disk") { clock in
            try HTTPCache(directory: folder.url, mode: .shared, storesResponsesThatSetCookies: true, clock: clock)
        }
        #expect(second.outcome == .cache && count == 1)
        try await cache.flush()
        let stored = try #require(cache.hybrid?.disk.entry(forKey: key)?.data)
        #expect(String(decoding: stored, as: UTF8.self).contains("content"))
        #expect(!String(decoding: stored, as: UTF8.self).contains("session=abc"))
        try cache.close()
    }

    /// `Cache-Control: private="Set-Cookie"`: the origin says the rest may be shared.
    @Test func aSharedCacheStoresTheRestWhenTheOriginNamesTheCookiePrivate() async throws {
        let (first, second, count, _, _) = try await twice("/shared-private-field", extraFields: [("Cache-Control", "private=\"Set-Cookie\"")]) { clock in
            try HTTPCache(diskCapacity: 0, mode: .shared, clock: clock)
        }
        #expect(first.response.headerFields[.setCookie] == Self.cookie)
        #expect(second.outcome == .cache)
        #expect(second.response.headerFields[.setCookie] == nil)
        #expect(count == 1)
    }

    @Test func aPrivateCacheStoresAndReplaysTheCookie() async throws {
        let (first, second, count, _, _) = try await twice("/private") { clock in
            try HTTPCache(diskCapacity: 0, mode: .private, clock: clock)
        }
        #expect(first.response.headerFields[.setCookie] == Self.cookie)
        #expect(second.outcome == .cache)
        #expect(second.response.headerFields[.setCookie] == Self.cookie)
        #expect(count == 1)
    }

    /// A `POST` whose response names its URI in `Content-Location` goes through the same
    /// rule: in shared mode it is not stored with its cookie by default, and stored without
    /// it when told to.
    @Test func aPostRepresentationThatSetsACookieFollowsTheSameRule() async throws {
        for stores in [false, true] {
            let cache = try HTTPCache(diskCapacity: 0, mode: .shared, storesResponsesThatSetCookies: stores)
            let target = HTTPRequest(method: .get, scheme: "https", authority: "origin.test", path: "/post-\(stores)")
            var post = target
            post.method = .post
            let send: HTTPSend = { _, _ in
                let fields: HTTPFields = [.cacheControl: "max-age=300", .contentLocation: "/post-\(stores)", .setCookie: Self.cookie]
                return (HTTPResponse(status: .ok, headerFields: fields), Data("posted".utf8))
            }
            let answer = try await cache.respond(to: post, send: send)
            #expect(answer.response.headerFields[.setCookie] == Self.cookie)
            let hit = cache.cachedResponse(for: target)
            #expect((hit != nil) == stores, "stores: \(stores)")
            #expect(hit?.response.headerFields[.setCookie] == nil)
        }
    }

    /// A `304` that sets a cookie gives it to the client whose request was revalidated. A
    /// shared cache that does not store responses setting cookies does not freshen its entry
    /// with one either (the entry stays stale, as it was); one that stores them without the
    /// field freshens it without the field.
    @Test(arguments: [false, true])
    func aNotModifiedThatSetsACookieIsNotStoredBySharedCache(storesResponsesThatSetCookies: Bool) async throws {
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_700_000_000))
        let cache = try HTTPCache(diskCapacity: 0, mode: .shared, storesResponsesThatSetCookies: storesResponsesThatSetCookies, clock: clock)
        let request = HTTPRequest(method: .get, scheme: "https", authority: "origin.test", path: "/revalidated")
        let send: HTTPSend = { request, _ in
            if request.headerFields[.ifNoneMatch] != nil {
                return (HTTPResponse(status: .notModified, headerFields: [.eTag: "\"v1\"", .setCookie: Self.cookie]), Data())
            }
            return (HTTPResponse(status: .ok, headerFields: [.cacheControl: "max-age=10", .eTag: "\"v1\""]), Data("body".utf8))
        }
        _ = try await cache.respond(to: request, send: send)
        clock.advance(by: 20)
        let revalidated = try await cache.respond(to: request, send: send)
        #expect(revalidated.outcome == .revalidated)
        #expect(revalidated.response.headerFields[.setCookie] == Self.cookie)
        #expect(revalidated.body == Data("body".utf8))
        let hit = cache.cachedResponse(for: request)
        #expect((hit != nil) == storesResponsesThatSetCookies, "freshened: \(hit != nil)")
        #expect(hit?.response.headerFields[.setCookie] == nil)
    }
}
