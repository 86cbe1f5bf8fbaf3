import Foundation
import HTTPTypes
import StashCore
import StashHTTP
import Testing

/// The HTTP cache's fixed limits: 16 variants per URL (the oldest go first) and 64 MiB for a
/// body a cache without a folder holds to store it (longer ones pass through unstored).
@Suite(.timeLimit(.minutes(2)))
struct HTTPCacheLimitsTests {
    static func request(language: String? = nil) -> HTTPRequest {
        var request = HTTPRequest(method: .get, scheme: "https", authority: "origin.test", path: "/page")
        if let language { request.headerFields[.acceptLanguage] = language }
        return request
    }

    /// 20 variants of one URL (`Vary: Accept-Language`) stored one after the other: the 16
    /// newest are kept, the 4 oldest dropped.
    @Test func aURLKeepsItsSixteenNewestVariants() throws {
        let cache = try HTTPCache(memoryCapacity: 16 << 20, diskCapacity: 0)
        let languages = (0..<20).map { "l\($0)" }
        for language in languages {
            var fields: HTTPFields = [.cacheControl: "max-age=600", .vary: "Accept-Language"]
            fields[.contentLength] = String(language.utf8.count)
            cache.storeResponse(HTTPResponse(status: .ok, headerFields: fields), body: Data(language.utf8), for: Self.request(language: language))
        }
        let kept = languages.filter { cache.cachedResponse(for: Self.request(language: $0)) != nil }
        #expect(kept == Array(languages.suffix(16)))
    }

    /// A body one byte over 64 MiB streams through a cache without a folder (whose memory
    /// could hold it) and is not stored: the next request goes to the origin again. One of
    /// 1 MiB is stored.
    @Test func aStreamedBodyOver64MiBIsNotStoredWithoutAFolder() async throws {
        let cache = try HTTPCache(memoryCapacity: 1 << 30, diskCapacity: 0)
        let trips = LockedValue(0)
        func get(_ size: Int) async throws -> Int {
            let answer = try await cache.streamResponse(to: Self.request()) { _, _ in
                trips.withLock { $0 += 1 }
                let chunk = Data(repeating: 0x61, count: 1 << 20)
                let sent = LockedValue(0)
                let fields: HTTPFields = [.cacheControl: "max-age=600", .contentLength: String(size)]
                return (HTTPResponse(status: .ok, headerFields: fields), HTTPBodyStream(next: {
                    sent.withLock { sent -> Data? in
                        guard sent < size else { return nil }
                        let part = chunk.prefix(min(chunk.count, size - sent))
                        sent += part.count
                        return part
                    }
                }))
            }
            var received = 0
            for try await part in answer.body { received += part.count }
            return received
        }
        let over = (64 << 20) + 1
        #expect(try await get(over) == over)
        #expect(try await get(over) == over)
        #expect(trips.withLock { $0 } == 2, "a body over 64 MiB was stored")
        trips.withLock { $0 = 0 }
        var small = Self.request()
        small.path = "/small"
        let answer = try await cache.streamResponse(to: small) { _, _ in
            trips.withLock { $0 += 1 }
            return (HTTPResponse(status: .ok, headerFields: [.cacheControl: "max-age=600", .contentLength: "1048576"]), HTTPBodyStream(Data(count: 1 << 20)))
        }
        _ = try await answer.body.collect()
        #expect(cache.cachedResponse(for: small)?.body.count == 1 << 20, "a 1 MiB body was not stored")
        #expect(trips.withLock { $0 } == 1)
    }
}
