import HTTPTypes
import NIOCore
import NIOHTTP1
import StashHTTPWire
import StashHTTPWireFuzzing
import StashTestSupport
import Testing

/// The raw hit path's reading of request heads (`PlainRequestHead`) against NIO's HTTP/1
/// decoder on the same bytes (`RequestHeadFuzzing`, the `http-request-head` fuzz target):
/// tricky heads by hand, mutated heads from a logged seed, and the comparison itself, shown
/// to catch each kind of difference.
struct PlainRequestHeadDifferentialTests {
    /// Heads at the edges of what the raw path reads: each read the same by both, or left
    /// to the decoder.
    static let tricky: [String] = [
        "GET / HTTP/1.1\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a \r\n\r\n",
        "GET / HTTP/1.1\r\nHost:\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: \r\n\r\n",
        "GET / HTTP/1.1\r\nHost: \ta\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\t\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a b\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\r\nhOsT: a\r\n\r\n",
        "GET / HTTP/1.1\r\nContent-Length: 0\r\nContent-Length: 0\r\n\r\n",
        "GET / HTTP/1.1\r\nContent-Length: 00\r\n\r\n",
        "GET / HTTP/1.1\r\nContent-Length: 0\r\ncontent-length: 5\r\n\r\n",
        "GET / HTTP/1.1\r\nContent-Length:0 \r\n\r\n",
        // Found by the mutation test (seed 2155107114655994960): NIO refuses a tab after `0`.
        "HEAD /logo.png HTTP/1.1\r\nHost: example.com\r\nContent-Length: 0\t\r\n\r\n",
        "GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        "GET / HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n",
        "GET / HTTP/1.1\r\nUpgrade: h2c\r\n\r\n",
        "GET / HTTP/1.1\r\nExpect: 100-continue\r\n\r\n",
        "GET / HTTP/1.1\r\nX: a\r\n b\r\n\r\n",
        "GET / HTTP/1.1\r\nX : a\r\n\r\n",
        "GET / HTTP/1.1\r\n: a\r\n\r\n",
        "GET / HTTP/1.1\r\nX:\ta\t\r\n\r\n",
        "GET / HTTP/1.1\r\nX: a\rb\r\n\r\n",
        "GET / HTTP/1.1\r\nX: a\u{7F}\r\n\r\n",
        "GET / HTTP/1.1\r\nX: caf\u{E9}\r\n\r\n",
        "GET /a#b HTTP/1.1\r\n\r\n",
        "GET /a?b=\"c\"&d=<e>{f}|\\^` HTTP/1.1\r\n\r\n",
        "GET * HTTP/1.1\r\n\r\n",
        "GET // HTTP/1.1\r\n\r\n",
        "GET /  HTTP/1.1\r\n\r\n",
        "GET / HTTP/1.1 \r\n\r\n",
        "GET / http/1.1\r\n\r\n",
        "GET / HTTP/1.1\r\n\r",
        "GET / HTTP/1.1\r\nHost: a\r\n",
        "GET / HTTP/1.1\r\nHost: a\r\n\n",
        "GET / HTTP/1.1\r\n\nGET / HTTP/1.1\r\n\r\n",
        "GET / HTTP/1.1\r\n\r\n\r\nGET /b HTTP/1.1\r\n\r\n",
        "GET / HTTP/1.1\r\n\r\nget / HTTP/1.1\r\n\r\n",
        "HEAD / HTTP/1.1\r\n\r\nHEAD / HTTP/1.1\r\n\r\nGET /x HTTP/1.1\r\nHost: b",
        "GET / HTTP/1.1\r\nAuthorization: Basic YTpi\r\n\r\n",
        "GET / HTTP/1.1\r\nProxy-Authorization: Basic YTpi\r\nTE: trailers\r\nTrailer: X\r\nProxy-Connection: keep-alive\r\n\r\n",
        "GET / HTTP/1.1\r\nX-\u{00}: a\r\n\r\n",
    ]

    @Test(arguments: tricky)
    func trickyHeadsAreReadAsTheDecoderReadsThem(text: String) {
        let divergence = Array(text.utf8).withUnsafeBytes { RequestHeadFuzzing.divergence(in: $0) }
        #expect(divergence == nil, "\(text.debugDescription)")
    }

    /// The seed heads, mutated byte by byte and line by line from a logged seed.
    @Test func mutatedHeadsAreReadAsTheDecoderReadsThem() {
        let seed = SeededGenerator.freshSeed(for: "mutatedHeadsAreReadAsTheDecoderReadsThem")
        var generator = SeededGenerator(seed: seed)
        let pieces: [[UInt8]] = [
            " ", "\t", "\r", "\n", "\r\n", ":", "/", "0", "\u{7F}", "Host: a\r\n", "Content-Length: 0\r\n", "Connection: close\r\n",
            "Transfer-Encoding: chunked\r\n", "\r\n\r\n", " HTTP/1.1\r\n", "GET ", "HEAD ",
        ].map { Array($0.utf8) } + [[0], [0x80], [0xFF]]
        var compared = 0
        for _ in 0..<1500 {
            var bytes = Array(RequestHeadFuzzing.seeds.randomElement(using: &generator)!.utf8)
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let at = Int.random(in: 0...bytes.count, using: &generator)
                switch Int.random(in: 0..<4, using: &generator) {
                case 0: bytes.insert(contentsOf: pieces.randomElement(using: &generator)!, at: at)
                case 1: if at < bytes.count { bytes.remove(at: at) }
                case 2: if at < bytes.count { bytes[at] = UInt8.random(in: 0...255, using: &generator) }
                default: bytes = Array(bytes[..<at])
                }
            }
            let divergence = bytes.withUnsafeBytes { RequestHeadFuzzing.divergence(in: $0) }
            #expect(divergence == nil, "seed \(seed): \(String(decoding: bytes, as: UTF8.self).debugDescription)")
            if divergence != nil { return }
            compared += 1
        }
        #expect(compared == 1500)
    }

    /// Each way NIO's head may differ from the raw path's reading is reported.
    @Test func theComparisonCatchesEachDifference() {
        let text = "GET /a HTTP/1.1\r\nHost: x\r\nAccept: y\r\nKeep-Alive: 5\r\n\r\n"
        guard case .request(let request, _) = PlainRequestHead.read(ByteBuffer(string: text)) else {
            Issue.record("not read")
            return
        }
        let same = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/a", headers: ["Host": "x", "Accept": "y", "Keep-Alive": "5"])
        #expect(RequestHeadFuzzing.divergence(between: request, and: same) == nil)
        let changes: [(inout HTTPRequestHead) -> Void] = [
            { $0.uri = "/b" },
            { $0.method = .POST },
            { $0.method = .HEAD },
            { $0.version = .http1_0 },
            { $0.headers.replaceOrAdd(name: "Host", value: "z") },
            { $0.headers.remove(name: "Host") },
            { $0.headers.add(name: "Host", value: "x") },
            { $0.headers.replaceOrAdd(name: "Accept", value: "y ,z") },
            { $0.headers.replaceOrAdd(name: "accept", value: "y") },
            { $0.headers.add(name: "X-More", value: "1") },
            { $0.headers.remove(name: "Accept") },
            { $0.headers.add(name: "If-None-Match", value: "\"v\"") },
            { $0.headers.add(name: "Content-Length", value: "1") },
            { $0.headers.add(name: "Authorization", value: "Basic YTpi") },
        ]
        for change in changes {
            var head = same
            change(&head)
            #expect(RequestHeadFuzzing.divergence(between: request, and: head) != nil, "\(head)")
        }
    }

    /// A reader that ends a head a byte early or late, or waits for more of a whole head,
    /// is reported on the bytes themselves, on any request of a pipelined stream.
    @Test func aStreamReadDifferentlyIsReported() {
        let pipelined = Array("GET /1 HTTP/1.1\r\nHost: a\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\n\r\nGET /3 HTTP/1.1\r\n\r\n".utf8)
        #expect(pipelined.withUnsafeBytes { RequestHeadFuzzing.divergence(in: $0) } == nil)
        let wrongs: [(PlainRequestHead.Reading) -> PlainRequestHead.Reading] = [
            { if case .request(let request, let length) = $0 { .request(request, length: length - 1) } else { $0 } },
            { if case .request(let request, let length) = $0 { .request(request, length: length + 1) } else { $0 } },
            { if case .request = $0 { .incomplete } else { $0 } },
        ]
        for wrong in wrongs {
            // Right for the first request, wrong for the second.
            var count = 0
            let divergence = pipelined.withUnsafeBytes { bytes in
                RequestHeadFuzzing.divergence(in: bytes) { buffer in
                    count += 1
                    return count == 2 ? wrong(PlainRequestHead.read(buffer)) : PlainRequestHead.read(buffer)
                }
            }
            #expect(divergence?.hasPrefix("request 1:") == true, "\(divergence ?? "none")")
        }
    }
}
