import Foundation
import HTTPTypes
import StashCore
import Testing
@testable import StashHTTP
import StashHTTPAsyncClient
import NIOCore

/// `Range` requests answered from a stored complete response (RFC 9110 §14).
struct ByteRangeTests {
    @Test func parsesSingleRanges() {
        #expect(ByteRange.answer(range: "bytes=0-3", length: 10) == .partial(0...3))
        #expect(ByteRange.answer(range: "bytes=4-", length: 10) == .partial(4...9))
        #expect(ByteRange.answer(range: "bytes=-3", length: 10) == .partial(7...9))
        #expect(ByteRange.answer(range: "bytes=-30", length: 10) == .partial(0...9))
        #expect(ByteRange.answer(range: "bytes=5-500", length: 10) == .partial(5...9))
        #expect(ByteRange.answer(range: "Bytes = 1-1", length: 10) == .whole) // whitespace around '=' is not allowed
        #expect(ByteRange.answer(range: "BYTES=1-1", length: 10) == .partial(1...1))
    }

    @Test func unsatisfiableAndIgnoredRanges() {
        #expect(ByteRange.answer(range: "bytes=10-", length: 10) == .unsatisfiable)
        #expect(ByteRange.answer(range: "bytes=-0", length: 10) == .unsatisfiable)
        #expect(ByteRange.answer(range: "bytes=0-0", length: 0) == .unsatisfiable)
        for ignored in ["bytes=5-1", "bytes=0-1,3-4", "items=0-1", "bytes=a-b", "bytes=-", "bytes=", "bytes=99999999999999999999-"] {
            #expect(ByteRange.answer(range: ignored, length: 10) == .whole, "\(ignored)")
        }
    }

    static let fields: HTTPFields = [
        .cacheControl: "max-age=600", .eTag: "\"v1\"", .lastModified: "Sun, 06 Nov 1994 08:49:37 GMT",
    ]

    static func request(range: String?, ifRange: String? = nil) -> HTTPRequest {
        var request = HTTPRequest(method: .get, scheme: "https", authority: "example.com", path: "/file")
        if let range { request.headerFields[.range] = range }
        if let ifRange { request.headerFields[.ifRange] = ifRange }
        return request
    }

    @Test func servesPartialContentFromTheCache() throws {
        let cache = try HTTPCache(diskCapacity: 0)
        #expect(cache.storeResponse(HTTPResponse(status: .ok, headerFields: Self.fields), body: Data("0123456789".utf8), for: Self.request(range: nil)))

        let partial = try #require(cache.cachedResponse(for: Self.request(range: "bytes=2-4")))
        #expect(partial.response.status == .partialContent)
        #expect(partial.response.headerFields[.contentRange] == "bytes 2-4/10")
        #expect(partial.response.headerFields[.contentLength] == "3")
        #expect(partial.body == Data("234".utf8))

        let suffix = try #require(cache.cachedResponse(for: Self.request(range: "bytes=-2", ifRange: "\"v1\"")))
        #expect(suffix.response.status == .partialContent && suffix.body == Data("89".utf8))

        let byDate = try #require(cache.cachedResponse(for: Self.request(range: "bytes=0-0", ifRange: "Sun, 06 Nov 1994 08:49:37 GMT")))
        #expect(byDate.response.status == .partialContent && byDate.body == Data("0".utf8))

        for stale in ["\"v0\"", "W/\"v1\"", "Mon, 07 Nov 1994 08:49:37 GMT"] {
            let whole = try #require(cache.cachedResponse(for: Self.request(range: "bytes=0-0", ifRange: stale)))
            #expect(whole.response.status == .ok && whole.body.count == 10, "If-Range \(stale)")
        }

        let beyond = try #require(cache.cachedResponse(for: Self.request(range: "bytes=20-")))
        #expect(beyond.response.status == .rangeNotSatisfiable)
        #expect(beyond.response.headerFields[.contentRange] == "bytes */10")
        #expect(beyond.body.isEmpty)
    }

    /// Through the client flow with a real origin: the origin is asked once, without `Range`,
    /// and later range requests are answered from the stored response.
    @Test func rangeRequestsAfterAFullResponseStayLocal() async throws {
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_700_000_000))
        let origin = try await TestOrigin.start(clock: clock)
        defer { origin.stop() }
        origin.set("/file", .init(fields: [("Cache-Control", "max-age=600"), ("ETag", "\"v1\"")], body: "abcdefghij"))
        let cache = try HTTPCache(diskCapacity: 0, clock: clock)
        let transport = AsyncHTTPClientTransport(timeout: .seconds(10))
        let client = CachingHTTPClient(cache: cache, transport: transport)
        var request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(origin.port)", path: "/file")
        _ = try await client.send(request)
        request.headerFields[.range] = "bytes=3-5"
        let answer = try await client.send(request)
        try await transport.shutdown()
        #expect(answer.response.status == .partialContent)
        #expect(answer.body == Data("def".utf8))
        #expect(answer.outcome == .cache)
        #expect(origin.requests("/file").count == 1)
    }
}
