import Foundation
import HTTPTypes
import StashCore
import StashTestSupport
import Testing
@testable import StashHTTP

/// The disk format of stored responses: round trips, records written by earlier versions,
/// and corrupt bytes, which throw `.corruptFile` and never trap.
struct StoredResponseCodingTests {
    static let sample = StoredResponse(
        status: 200, reasonPhrase: "OK",
        headerFields: [.cacheControl: "max-age=60", .eTag: "\"v1\"", .contentType: "text/plain; charset=utf-8"],
        body: Data("héllo".utf8),
        requestTime: Date(timeIntervalSince1970: 1_700_000_000.25),
        responseTime: Date(timeIntervalSince1970: 1_700_000_001.5),
        selectingFields: ["accept-language": "de", "accept-encoding": String?.none]
    )

    @Test func roundTrips() throws {
        let other = StoredResponse(
            status: 404, reasonPhrase: "Not Found", headerFields: [:], body: Data(),
            requestTime: Date(timeIntervalSince1970: 0), responseTime: Date(timeIntervalSince1970: 1), selectingFields: [:]
        )
        let data = StoredResponseCoding.encode(key: "https://example.com/a?b=1", variants: [Self.sample, other])
        let decoded = try StoredResponseCoding.decode(data)
        #expect(decoded.key == "https://example.com/a?b=1")
        #expect(decoded.variants == [Self.sample, other])
        #expect(try StoredResponseCoding().decode(StoredResponseCoding().encode([Self.sample])) == [Self.sample])
    }

    /// A variant whose body is in a file of the disk cache keeps the reference (format
    /// `STH2`, beside a variant with its body inline); without one the format stays `STH1`,
    /// which earlier versions read.
    @Test func bodyFileReferencesRoundTrip() throws {
        var inFile = Self.sample
        inFile.body = Data()
        inFile.bodyFile = StoredResponse.BodyFile(key: "http-body:0A1B", length: 3_000_000_000)
        let data = StoredResponseCoding.encode(key: "k", variants: [Self.sample, inFile])
        #expect(data.prefix(4) == Data([0x32, 0x48, 0x54, 0x53]))
        let decoded = try StoredResponseCoding.decode(data).variants
        #expect(decoded == [Self.sample, inFile])
        #expect(decoded.last?.bodyLength == 3_000_000_000)
        #expect(decoded.last?.response(age: 0).headerFields[.contentLength] == "3000000000")
        #expect(StoredResponseCoding.encode(key: "k", variants: [Self.sample]).prefix(4) == Data([0x31, 0x48, 0x54, 0x53]))
        for length in 0..<data.count {
            #expect(throws: StashError.self) { try StoredResponseCoding.decode(data.prefix(length)) }
        }
    }

    /// Bytes laid out by hand the way HTTPCache wrote them before the shared binary codec
    /// (32-bit little-endian lengths): entries on disk from earlier versions still decode.
    @Test func decodesRecordsOfEarlierVersions() throws {
        var bytes: [UInt8] = []
        func u32(_ value: UInt32) { bytes += withUnsafeBytes(of: value.littleEndian, Array.init) }
        func text(_ value: String) { u32(UInt32(value.utf8.count)); bytes += Array(value.utf8) }
        bytes += [0x31, 0x48, 0x54, 0x53] // "STH1", little-endian
        text("")
        u32(1)
        bytes += [200, 0] // status
        text("OK")
        u32(2)
        text("Cache-Control"); text("max-age=60")
        text("ETag"); text("\"v1\"")
        u32(1)
        text("accept-language"); bytes.append(1); text("de")
        bytes += withUnsafeBytes(of: (1_700_000_000.0).bitPattern.littleEndian, Array.init)
        bytes += withUnsafeBytes(of: (1_700_000_002.0).bitPattern.littleEndian, Array.init)
        text("body")
        let decoded = try StoredResponseCoding.decode(Data(bytes))
        let variant = try #require(decoded.variants.first)
        #expect(decoded.variants.count == 1)
        #expect(variant.status == 200 && variant.reasonPhrase == "OK")
        #expect(variant.headerFields[.cacheControl] == "max-age=60" && variant.headerFields[.eTag] == "\"v1\"")
        #expect(variant.selectingFields == ["accept-language": "de"])
        #expect(variant.requestTime == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(variant.responseTime == Date(timeIntervalSince1970: 1_700_000_002))
        #expect(variant.body == Data("body".utf8))
    }

    @Test func everyTruncationThrowsCorruptFile() throws {
        let data = StoredResponseCoding.encode(key: "k", variants: [Self.sample])
        for length in 0..<data.count {
            #expect(throws: StashError.self) { try StoredResponseCoding.decode(data.prefix(length)) }
        }
        #expect(throws: StashError.self) { try StoredResponseCoding.decode(data + Data([0])) }
    }

    /// A count of four billion variants in a few bytes is refused before anything is allocated.
    @Test func hostileCountsAreRefused() throws {
        var data = StoredResponseCoding.encode(key: "", variants: [])
        data.replaceSubrange(8..<12, with: [0xFF, 0xFF, 0xFF, 0xFF])
        let error = try #require(throws: StashError.self) { try StoredResponseCoding.decode(data) }
        #expect(error.code == .corruptFile)
    }

    /// Random byte flips: each either decodes (to a record that encodes and decodes the same)
    /// or throws; none traps.
    @Test func flippedBytesNeverTrap() throws {
        let seed = SeededGenerator.freshSeed(for: "StoredResponseCodingTests.flippedBytesNeverTrap")
        var generator = SeededGenerator(seed: seed)
        let original = StoredResponseCoding.encode(key: "https://example.com/", variants: [Self.sample, Self.sample])
        for _ in 0..<2_000 {
            var data = original
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                data[Int.random(in: 0..<data.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            let result = data.withUnsafeBytes { HTTPFuzzing.storedResponse($0) }
            #expect(result != -2, "seed \(seed): a decoded record did not survive a round trip")
        }
    }
}
