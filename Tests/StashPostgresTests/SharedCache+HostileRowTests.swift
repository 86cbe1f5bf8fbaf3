import Foundation
import HTTPTypes
import NIOCore
import PostgresNIO
import StashCore
import StashHTTP
import StashPostgres
import StashPostgresHTTP
import Testing

/// A row of the shared table is input: one whose stored response has times that are not
/// numbers or infinite, written into `stash_cache` with SQL (as a damaged or hostile writer
/// on the database would), is a miss for every `HTTPCache` on the table and is removed.
@Suite(.enabled(if: TestPostgres.enabled, TestPostgres.skipReason))
struct SharedCacheHostileRowTests {
    static let time: TimeInterval = 1_700_000_000

    /// `value` with every occurrence of ``time``'s bit pattern (the request and response
    /// times the cache stored) replaced by `bits`.
    static func patchingTimes(_ value: [UInt8], to bits: UInt64) throws -> [UInt8] {
        let needle = withUnsafeBytes(of: time.bitPattern.littleEndian, Array.init)
        let replacement = withUnsafeBytes(of: bits.littleEndian, Array.init)
        var bytes = value
        var found = 0
        var index = 0
        while index + 8 <= bytes.count {
            if Array(bytes[index..<(index + 8)]) == needle {
                bytes.replaceSubrange(index..<(index + 8), with: replacement)
                found += 1
                index += 8
            } else {
                index += 1
            }
        }
        try #require(found == 2, "the stored value holds its two times")
        return bytes
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity, 1e300])
    func aRowWhoseTimesAreNotSaneIsAMissAndIsRemoved(time: Double) async throws {
        try await TestPostgres.withCache { storage in
            let clock = ManualClock(now: Date(timeIntervalSince1970: Self.time))
            let cache = HTTPCache(sharedStorage: storage, clock: clock)
            let request = HTTPRequest(method: .get, scheme: "https", authority: "origin.test", path: "/hostile/row")
            let send: HTTPSend = { _, _ in (HTTPResponse(status: .ok, headerFields: [.cacheControl: "max-age=600"]), Data("stored".utf8)) }
            _ = try await cache.respond(to: request, send: send)
            try await cache.flush()
            var onlyIfCached = request
            onlyIfCached.headerFields[.cacheControl] = "only-if-cached"
            #expect(try await cache.respond(to: onlyIfCached, send: send).outcome == .cache)

            var stored: [UInt8] = []
            for try await value in try await storage.client.query("SELECT value FROM stash_cache WHERE key LIKE 'http-cache:%'").decode(ByteBuffer.self) {
                stored = Array(value.readableBytesView)
            }
            let hostile = ByteBuffer(bytes: try Self.patchingTimes(stored, to: time.bitPattern))
            try await storage.client.query("UPDATE stash_cache SET value = \(hostile) WHERE key LIKE 'http-cache:%'")

            let answer = try await cache.respond(to: onlyIfCached, send: send)
            #expect(answer.outcome == .unavailable)
            var rows: Int64 = -1
            for try await count in try await storage.client.query("SELECT count(*)::int8 FROM stash_cache").decode(Int64.self) { rows = count }
            #expect(rows == 0, "the hostile row is still in the table")
        }
    }
}
