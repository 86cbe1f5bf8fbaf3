import Foundation
import HTTPTypes
import StashCore
import StashTestSupport
import Testing
import StashCache
@testable import StashHTTP

/// HTTPCache keys follow the package's key identity rule (`StoredKey`): URIs Swift finds
/// equal are one entry, in memory and on disk, before and after a reopen.
struct PrimaryCacheKeyTests {
    static let nfc = "/caf\u{E9}?q=\u{C5}"
    static let nfd = "/cafe\u{301}?q=\u{212B}"

    static func request(_ path: String) -> HTTPRequest {
        HTTPRequest(method: .get, scheme: "https", authority: "Example.COM", path: path)
    }

    @Test func canonicallyEquivalentURIsAreOneKey() throws {
        let nfc = try #require(PrimaryCacheKey(Self.request(Self.nfc)))
        let nfd = try #require(PrimaryCacheKey(Self.request(Self.nfd)))
        #expect(nfc == nfd)
        #expect(nfc.storageKey == nfd.storageKey)
        #expect(nfc.storageKey == "https://example.com/caf\u{E9}?q=\u{C5}")
    }

    /// An ASCII URI's key is written in one pass: scheme and host lowercased, the path and
    /// query as sent; NUL anywhere makes no key, and a non-ASCII host takes the Unicode path.
    @Test func asciiKeysLowercaseTheOriginOnly() throws {
        let key = try #require(PrimaryCacheKey(scheme: "HTTPS", authority: "Example.COM:8443", path: "/A/b?Q=Z"))
        #expect(key.storageKey == "https://example.com:8443/A/b?Q=Z")
        #expect(key.origin == "https://example.com:8443")
        #expect(try #require(PrimaryCacheKey(scheme: "http", authority: "a", path: "")).storageKey == "http://a/")
        #expect(PrimaryCacheKey(scheme: "http", authority: "a\u{0}b", path: "/") == nil)
        #expect(PrimaryCacheKey(scheme: "http", authority: "a", path: "/x\u{0}") == nil)
        let unicode = try #require(PrimaryCacheKey(scheme: "http", authority: "B\u{C9}.example", path: "/P"))
        #expect(unicode.storageKey == "http://b\u{E9}.example/P")
        #expect(unicode.origin == "http://b\u{E9}.example")
    }

    @Test func equivalentURIsAreOneEntryAcrossReopen() async throws {
        let folder = TemporaryFolder("http-keys")
        let directory = folder.file("cache")
        let fields: HTTPFields = [.cacheControl: "max-age=3600"]
        do {
            let cache = try HTTPCache(directory: directory)
            #expect(cache.storeResponse(HTTPResponse(status: .ok, headerFields: fields), body: Data("first".utf8), for: Self.request(Self.nfd)))
            #expect(cache.storeResponse(HTTPResponse(status: .ok, headerFields: fields), body: Data("second".utf8), for: Self.request(Self.nfc)))
            try await cache.flush()
            try cache.close()
        }
        let reopened = try HTTPCache(directory: directory)
        defer { try? reopened.close() }
        for path in [Self.nfc, Self.nfd] {
            let hit = try #require(reopened.cachedResponse(for: Self.request(path)))
            #expect(String(decoding: hit.body, as: UTF8.self) == "second")
        }
        #expect(reopened.cachedResponse(for: Self.request("/cafe")) == nil)
    }

    /// A stored file that does not decode is a miss, never a crash, and is removed.
    @Test func undecodableEntryOnDiskIsAMiss() async throws {
        let folder = TemporaryFolder("http-corrupt")
        let directory = folder.file("cache")
        let key = try #require(PrimaryCacheKey(Self.request("/x")))
        do {
            let cache = try HTTPCache(directory: directory)
            try #require(cache.hybrid).disk.set(Data("STH1 but not really".utf8), forKey: key.storageKey)
            try await cache.flush()
            try cache.close()
        }
        let reopened = try HTTPCache(directory: directory)
        defer { try? reopened.close() }
        #expect(reopened.cachedResponse(for: Self.request("/x")) == nil)
        #expect(try #require(reopened.hybrid).disk.contains(key.storageKey) == false)
    }
}
