import Foundation
import HTTPTypes
import StashCache
import StashCore
import StashTestSupport
import Testing
@testable import StashHTTP

/// Stored entries are input: a record whose times are not finite or not sane, whose fields
/// do not parse or whose body file is longer than `Int.max`, written into a real cache
/// folder or shared storage, is a miss through the public API (never a trap) and is gone
/// afterwards; and serving never traps on a stored value that slipped past the decoder.
struct StoredResponseHostileEntryTests {
    static let time: TimeInterval = 1_700_000_000
    static let request = HTTPRequest(method: .get, scheme: "https", authority: "origin.test", path: "/hostile")

    /// A record for ``request`` stored at ``time`` (request and response), fresh for 10 minutes.
    static func record(bodyFileLength: Int? = nil) throws -> Data {
        var stored = StoredResponse(
            status: 200, reasonPhrase: "OK", headerFields: [.cacheControl: "max-age=600", .contentType: "text/plain"],
            body: Data("stored".utf8), requestTime: Date(timeIntervalSince1970: time),
            responseTime: Date(timeIntervalSince1970: time), selectingFields: [:]
        )
        if let bodyFileLength {
            stored.body = Data()
            stored.bodyFile = StoredResponse.BodyFile(key: "http-body:hostile", length: bodyFileLength)
        }
        let key = try #require(PrimaryCacheKey(request))
        return StoredResponseCoding.encode(key: key.storageKey, variants: [stored])
    }

    /// `data` with its request time (`which: 0`), response time (1) or both (`nil`) set to
    /// the `Double` bit pattern `bits`.
    static func patchingTimes(_ data: Data, which: Int? = nil, to bits: UInt64) throws -> Data {
        let needle = withUnsafeBytes(of: time.bitPattern.littleEndian, Array.init)
        let replacement = withUnsafeBytes(of: bits.littleEndian, Array.init)
        var bytes = Array(data)
        var found = 0
        var index = 0
        while index + 8 <= bytes.count {
            if Array(bytes[index..<(index + 8)]) == needle {
                if which == nil || which == found { bytes.replaceSubrange(index..<(index + 8), with: replacement) }
                found += 1
                index += 8
            } else {
                index += 1
            }
        }
        try #require(found == 2, "the record holds its two times once each")
        return Data(bytes)
    }

    /// The damaged records, by name: times that are not numbers, infinite, absurd, before
    /// 1970, and a response a year before its request.
    static func damagedRecords() throws -> [(String, Data)] {
        let record = try Self.record()
        var cases: [(String, Data)] = [
            ("NaN", try patchingTimes(record, to: Double.nan.bitPattern)),
            ("signalling NaN", try patchingTimes(record, which: 1, to: 0x7FF0_0000_0000_0001)),
            ("+inf", try patchingTimes(record, to: Double.infinity.bitPattern)),
            ("-inf", try patchingTimes(record, which: 1, to: (-Double.infinity).bitPattern)),
            ("1e300", try patchingTimes(record, to: (1e300).bitPattern)),
            ("year 10000", try patchingTimes(record, which: 0, to: (253_402_300_800.0).bitPattern)),
            ("before 1970", try patchingTimes(record, to: (-1.0).bitPattern)),
            ("response a year before its request", try patchingTimes(record, which: 1, to: (time - 365 * 86_400).bitPattern)),
        ]
        // A body file of UInt64.max bytes: the last 8 bytes of a record with a body file.
        var huge = try Self.record(bodyFileLength: 1)
        huge.replaceSubrange((huge.count - 8)..<huge.count, with: [UInt8](repeating: 0xFF, count: 8))
        cases.append(("body file over Int.max", huge))
        // A field value with a line break, and a field name that is not one.
        cases.append(("CR LF in a value", try replacing("text/plain", with: "text\r\nX: y", in: record)))
        cases.append(("a name that is not one", try replacing("Content-Type", with: "Content Type", in: record)))
        return cases
    }

    /// `data` with the first occurrence of `old` replaced by `new`, and the 32-bit length
    /// before it adjusted.
    static func replacing(_ old: String, with new: String, in data: Data) throws -> Data {
        var bytes = Array(data)
        let needle = Array(old.utf8)
        let start = try #require((4..<(bytes.count - needle.count)).first { Array(bytes[$0..<($0 + needle.count)]) == needle })
        bytes.replaceSubrange(start..<(start + needle.count), with: Array(new.utf8))
        bytes.replaceSubrange((start - 4)..<start, with: withUnsafeBytes(of: UInt32(new.utf8.count).littleEndian, Array.init))
        return Data(bytes)
    }

    @Test func theCodecRefusesEachDamagedRecord() throws {
        #expect(try StoredResponseCoding.decode(Self.record()).variants.count == 1)
        for (name, data) in try Self.damagedRecords() {
            let error = #expect(throws: StashError.self, "\(name)") { try StoredResponseCoding.decode(data) }
            #expect(error?.code == .corruptFile, "\(name)")
        }
    }

    /// A response time up to a day before its request time (a wall clock stepped back) still
    /// decodes, as do the first instant of 1970 and the last of 9999.
    @Test func theCodecAcceptsTheEdgesOfTheRanges() throws {
        let record = try Self.record()
        for (which, seconds) in [(1, Self.time - 86_400), (nil, 0), (nil, 253_402_300_799)] {
            let data = try Self.patchingTimes(record, which: which, to: seconds.bitPattern)
            #expect(throws: Never.self) { try StoredResponseCoding.decode(data) }
        }
    }

    /// Each damaged record, written into a real cache folder under the URL's key: the lookup
    /// (`cachedResponse(for:)`) is a miss and removes it from the disk.
    @Test func aDamagedRecordOnDiskIsAMissAndIsRemoved() throws {
        let key = try #require(PrimaryCacheKey(Self.request))
        for (name, data) in try Self.damagedRecords() {
            let folder = TemporaryFolder("http-hostile-entry")
            let disk = try DiskCache(directory: folder.url)
            try disk.set(data, forKey: key.storageKey)
            try disk.close()
            let cache = try HTTPCache(directory: folder.url, clock: ManualClock(now: Date(timeIntervalSince1970: Self.time + 1)))
            #expect(cache.cachedResponse(for: Self.request) == nil, "\(name)")
            #expect(cache.hybrid?.disk.contains(key.storageKey) == false, "\(name): still on disk")
            try cache.close()
        }
    }

    /// The same through `respond` (the streaming path): the origin is asked, and the
    /// damaged record is gone (the origin's answer is `no-store`, so nothing replaces it).
    @Test func aDamagedRecordOnDiskIsAMissForRespond() async throws {
        let key = try #require(PrimaryCacheKey(Self.request))
        let sends = LockedValue(0)
        let send: HTTPSend = { _, _ in
            sends.withLock { $0 += 1 }
            return (HTTPResponse(status: .ok, headerFields: [.cacheControl: "no-store"]), Data("origin".utf8))
        }
        for (name, data) in try Self.damagedRecords() {
            let folder = TemporaryFolder("http-hostile-entry-respond")
            let disk = try DiskCache(directory: folder.url)
            try disk.set(data, forKey: key.storageKey)
            try disk.close()
            let cache = try HTTPCache(directory: folder.url, clock: ManualClock(now: Date(timeIntervalSince1970: Self.time + 1)))
            let before = sends.withLock { $0 }
            let answer = try await cache.respond(to: Self.request, send: send)
            #expect(answer.outcome == .network, "\(name)")
            #expect(answer.body == Data("origin".utf8), "\(name)")
            #expect(sends.withLock { $0 } == before + 1, "\(name)")
            #expect(cache.hybrid?.disk.contains(key.storageKey) == false, "\(name): still on disk")
            try cache.close()
        }
    }

    /// In shared storage, a damaged record in a format this version writes is removed by
    /// the lookup that finds it (a request that may only be answered from the cache gets
    /// `504`); a value in a format it does not know (a newer version's) is left in place.
    @Test func aDamagedRecordInSharedStorageIsAMissAndIsRemoved() async throws {
        let key = try #require(PrimaryCacheKey(Self.request))
        var onlyIfCached = Self.request
        onlyIfCached.headerFields[.cacheControl] = "only-if-cached"
        let send: HTTPSend = { _, _ in throw CancellationError() } // the origin is never asked
        let storage = HTTPCacheSharedStorageTests.DictionaryStorage()
        let cache = HTTPCache(sharedStorage: storage, clock: ManualClock(now: Date(timeIntervalSince1970: Self.time + 1)))
        let name = HTTPCache.sharedKey(key, in: storage)
        try await storage.set(Self.record(), forKey: name, expiry: .never)
        #expect(try await cache.respond(to: onlyIfCached, send: send).outcome == .cache)
        for (label, data) in try Self.damagedRecords() {
            try await storage.set(data, forKey: name, expiry: .never)
            let answer = try await cache.respond(to: onlyIfCached, send: send)
            #expect(answer.outcome == .unavailable, "\(label)")
            #expect(try await storage.value(forKey: name) == nil, "\(label): still stored")
        }
        let newer = Data([0x39, 0x48, 0x54, 0x53] + Array("a format of a later version".utf8)) // magic "STH9"
        try await storage.set(newer, forKey: name, expiry: .never)
        #expect(try await cache.respond(to: onlyIfCached, send: send).outcome == .unavailable)
        #expect(try await storage.value(forKey: name) == newer)
    }

    /// A stored response whose times are not numbers or infinite (as if one slipped past
    /// the decoder) is served without trapping, with an `Age` clamped to 2147483648, and is
    /// never fresh.
    @Test func servingNeverTrapsOnAStoredValue() throws {
        let cache = try HTTPCache(mode: .shared)
        let plain = Self.request
        var ranged = plain
        ranged.headerFields[.range] = "bytes=-3"
        ranged.headerFields[.ifNoneMatch] = "\"x\""
        for time in [Double.nan, .infinity, -.infinity, 1e300, -1e300] {
            let stored = StoredResponse(
                status: 200, reasonPhrase: "OK", headerFields: [.cacheControl: "max-age=600", .age: "99999999999999999999"],
                body: Data("stored".utf8), requestTime: Date(timeIntervalSince1970: time),
                responseTime: Date(timeIntervalSince1970: time), selectingFields: [:]
            )
            let now = Date(timeIntervalSince1970: Self.time)
            let (response, _) = cache.serve(stored, toPlain: .get, now: now)
            let age = try #require(response.headerFields[.age].flatMap { Int($0) })
            #expect((0...2_147_483_648).contains(age), "\(time)")
            _ = cache.serve(stored, to: ranged, now: now)
            #expect(Reuse.decide(stored, fields: plain.headerFields, directives: RequestDirectives(), mode: .shared, now: now) != .fresh)
            #expect(HTTPFuzzing.serve(stored) != 0)
            #expect(!HTTPDate.format(Date(timeIntervalSince1970: time)).isEmpty)
        }
        #expect(StoredResponse.ageSeconds(.nan) == 2_147_483_648)
        #expect(StoredResponse.ageSeconds(.infinity) == 2_147_483_648)
        #expect(StoredResponse.ageSeconds(-.infinity) == 0)
        #expect(StoredResponse.ageSeconds(40) == 40)
        #expect(HTTPDate.format(Date(timeIntervalSince1970: .infinity)) == "Fri, 31 Dec 9999 23:59:59 GMT")
    }

    /// Statistics add a body file's claimed length without overflowing.
    @Test func bytesSavedStopsAtIntMax() {
        var statistics = HTTPCache.Statistics()
        statistics.addBytesSaved(.max)
        statistics.addBytesSaved(.max)
        #expect(statistics.bytesSaved == .max)
    }
}
