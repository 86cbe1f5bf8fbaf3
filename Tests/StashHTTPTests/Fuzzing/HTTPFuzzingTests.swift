import Foundation
import StashTestSupport
import Testing
@testable import StashHTTP

/// The fuzzing entry points parse what they should and survive random and hostile bytes.
struct HTTPFuzzingTests {
    static func run(_ text: String, _ entry: (UnsafeRawBufferPointer) -> Int) -> Int {
        Array(text.utf8).withUnsafeBytes(entry)
    }

    @Test func parsesWellFormedInput() {
        #expect(Self.run("max-age=60, no-cache=\"Set-Cookie, X\", private", HTTPFuzzing.cacheControl) == 3)
        #expect(Self.run("Sun, 06 Nov 1994 08:49:37 GMT", HTTPFuzzing.httpDate) == 1)
        #expect(Self.run("Sunday, 06-Nov-94 08:49:37 GMT", HTTPFuzzing.httpDate) == 1)
        #expect(Self.run("yesterday", HTTPFuzzing.httpDate) == 0)
        #expect(Self.run("Accept-Language, accept-encoding, ACCEPT-LANGUAGE", HTTPFuzzing.vary) == 2)
        #expect(Self.run("Accept, *", HTTPFuzzing.vary) == -1)
        #expect(Self.run("\"a\", W/\"b\", \"c,d\"", HTTPFuzzing.entityTags) == 3)
        #expect(Self.run("*", HTTPFuzzing.entityTags) == -1)
        let record = StoredResponseCoding.encode(key: "k", variants: [StoredResponseCodingTests.sample])
        #expect(record.withUnsafeBytes(HTTPFuzzing.storedResponse) == 1)
        #expect(Self.run("STH1", HTTPFuzzing.storedResponse) == -1)
    }

    /// Random bytes, and random mixes of the characters the parsers care about.
    @Test func survivesRandomInput() {
        let seed = SeededGenerator.freshSeed(for: "HTTPFuzzingTests.survivesRandomInput")
        var generator = SeededGenerator(seed: seed)
        let alphabet = Array("\"\\,;=* \t/Ww-09aZ:GMT\u{0}\u{FF}".utf8)
        let entries: [(UnsafeRawBufferPointer) -> Int] = [
            HTTPFuzzing.storedResponse, HTTPFuzzing.cacheControl, HTTPFuzzing.httpDate, HTTPFuzzing.vary, HTTPFuzzing.entityTags,
        ]
        for round in 0..<3_000 {
            let count = Int.random(in: 0...64, using: &generator)
            let bytes: [UInt8] = (0..<count).map { _ in
                round.isMultiple(of: 2) ? UInt8.random(in: 0...255, using: &generator) : alphabet.randomElement(using: &generator)!
            }
            for entry in entries { _ = bytes.withUnsafeBytes(entry) }
        }
    }
}
