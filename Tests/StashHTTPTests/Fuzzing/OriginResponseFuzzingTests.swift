import Foundation
import NIOCore
@testable import StashHTTPWireFuzzing
import StashTestSupport
import Testing

/// The hostile-origin fuzz target: its seeds are stored and served, and hostile or mutated
/// origin responses give no finding (no record that reads back otherwise, no served answer
/// that splits or changes on the wire).
struct OriginResponseFuzzingTests {
    static func finding(_ text: String) -> String? {
        Array(text.utf8).withUnsafeBytes(OriginResponseFuzzing.finding(in:))
    }

    @Test func seedsAreStoredAndServedWhole() throws {
        for seed in OriginResponseFuzzing.seeds {
            #expect(Self.finding(seed) == nil, "\(seed.debugDescription)")
        }
        // The first seed is a plain cacheable 200: the cache must store it, or the target
        // checks nothing.
        let seed = try #require(OriginResponseFuzzing.seeds.first)
        let head = try #require(OriginResponseFuzzing.decoded(.init(string: seed)))
        #expect(head.1 == Data("hello".utf8))
    }

    @Test(arguments: [
        "HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\nX-Split: a\r\n b\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\nX-Nul: a\u{0}b\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nCache-Control: max-age=60\nX-Bare: lf\nContent-Length: 0\n\n",
        "HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\nContent-Length: 10\r\n\r\nshort",
        "HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nabc",
        "HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\nx\r\n0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\nTransfer-Encoding: chunked\r\n\r\n-5\r\nhello\r\n0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\nTransfer-Encoding: chunked\r\n\r\n5;a=\"\r\n\"\r\nhello\r\n0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\nLocation: /a%0d%0aSet-Cookie:%20x=1\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nCache-Control: max-age=60, private=\"X-Account\"\r\nX-Account: alice\r\nVary: *\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 999 Nine\r\nCache-Control: max-age=60\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 200 \u{7F}\u{1}\r\nCache-Control: max-age=60\r\nContent-Length: 0\r\n\r\n",
    ])
    func hostileOriginResponsesGiveNoFinding(_ response: String) {
        #expect(Self.finding(response) == nil)
    }

    /// Each seed with random bytes overwritten, inserted or cut, as the fuzzer would.
    @Test func mutatedSeedsGiveNoFinding() {
        let seed = SeededGenerator.freshSeed(for: "OriginResponseFuzzingTests.mutatedSeedsGiveNoFinding")
        var generator = SeededGenerator(seed: seed)
        let alphabet = Array("\r\n\t :;,=\"\\0123456789abcdefABCDEF-/\u{0}\u{7F}\u{FF}".utf8)
        for round in 0..<2_000 {
            var bytes = Array(OriginResponseFuzzing.seeds[round % OriginResponseFuzzing.seeds.count].utf8)
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let at = Int.random(in: 0..<bytes.count, using: &generator)
                let byte = alphabet.randomElement(using: &generator)!
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: bytes[at] = byte
                case 1: bytes.insert(byte, at: at)
                default: bytes.remove(at: at)
                }
                if bytes.isEmpty { bytes = [byte] }
            }
            let finding = bytes.withUnsafeBytes(OriginResponseFuzzing.finding(in:))
            #expect(finding == nil, "seed \(seed), round \(round): \(String(decoding: bytes, as: UTF8.self).debugDescription)")
            if finding != nil { return }
        }
    }
}
