import Foundation
import HTTPTypes
import StashCore
import StashHTTP
import StashTestSupport
import Testing
@testable import StashHTTPServer

/// The origin is hostile input too: a real proxy in front of an origin that sends, byte for
/// byte, what a broken or malicious server would. Each case asks for the hostile path twice
/// (both must reach the origin: nothing of it was stored), checks what the client got
/// (never a second response smuggled into the first, never a field the origin split in
/// two), then asks for a well-formed path on the same proxy, which must still be served.
@Suite(.serialized)
struct ProxyHostileOriginTests {
    /// One hostile reply and what a client may see of it.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var reply: String
        /// The statuses the client may get: the origin's own (passed on, its body then cut
        /// or whole) or the proxy's `502` / `504`. `nil` in the list: no response at all
        /// (the connection closed before a head).
        var statuses: Set<Int?>
        /// Whether the reply is a correct response a cache may store (the case then checks
        /// only that it is stored as the origin framed it).
        var mayBeStored = false
        var testDescription: String { name }
    }

    static let good = "HTTP/1.1 200 OK\r\nCache-Control: max-age=600\r\nContent-Length: 2\r\n\r\nok"
    static let head = "HTTP/1.1 200 OK\r\nCache-Control: max-age=600\r\n"
    static let chunked = head + "Transfer-Encoding: chunked\r\n\r\n"

    static let cases: [Case] = [
        // Chunk sizes.
        Case(name: "a chunk size past 64 bits", reply: chunked + "FFFFFFFFFFFFFFFFFFFFFF\r\nabc\r\n0\r\n\r\n", statuses: [200, 502, nil]),
        Case(name: "a chunk size just past Int64", reply: chunked + "8000000000000000\r\nabc\r\n0\r\n\r\n" + RawOrigin.hangUp, statuses: [200, 502, nil]),
        Case(name: "a negative chunk size", reply: chunked + "-1\r\nabc\r\n0\r\n\r\n", statuses: [200, 502, nil]),
        Case(name: "a chunk size that is no number", reply: chunked + "zz\r\nabc\r\n0\r\n\r\n", statuses: [200, 502, nil]),
        Case(name: "a chunk longer than what is sent", reply: chunked + "100\r\nabc" + RawOrigin.hangUp, statuses: [200, 502, nil]),
        Case(name: "a chunked body without its last chunk", reply: chunked + "3\r\nabc\r\n" + RawOrigin.hangUp, statuses: [200, 502, nil]),
        Case(
            name: "a 64 KB chunk extension", reply: chunked + "2;" + String(repeating: "e", count: 64 << 10) + "\r\nok\r\n0\r\n\r\n",
            statuses: [200, 502, nil], mayBeStored: true
        ),
        // Content-Length.
        Case(name: "fewer bytes than Content-Length", reply: head + "Content-Length: 10\r\n\r\nabc" + RawOrigin.hangUp, statuses: [200, 502, nil]),
        Case(name: "two different Content-Lengths", reply: head + "Content-Length: 2\r\nContent-Length: 5\r\n\r\nokkkk", statuses: [502]),
        Case(name: "Content-Length with Transfer-Encoding", reply: head + "Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n", statuses: [200, 502], mayBeStored: true),
        Case(name: "a negative Content-Length", reply: head + "Content-Length: -5\r\n\r\nok", statuses: [502]),
        Case(name: "a Content-Length that is no number", reply: head + "Content-Length: 2x\r\n\r\nok", statuses: [502]),
        Case(name: "a Content-Length past 64 bits", reply: head + "Content-Length: 99999999999999999999999\r\n\r\nok", statuses: [502]),
        Case(
            name: "more bytes than Content-Length", reply: head + "Content-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nevil",
            statuses: [200], mayBeStored: true
        ),
        // Field lines.
        Case(name: "a CR in a field value", reply: head + "X-Bad: a\rInjected: 1\r\nContent-Length: 2\r\n\r\nok", statuses: [200, 502]),
        Case(name: "a NUL in a field value", reply: head + "X-Bad: a\u{0}Injected: 1\r\nContent-Length: 2\r\n\r\nok", statuses: [200, 502]),
        Case(name: "a folded field line", reply: head + "X-Fold: a\r\n Injected: 1\r\nContent-Length: 2\r\n\r\nok", statuses: [200, 502]),
        Case(name: "a bare LF ending a field line", reply: head + "X-Bad: a\nInjected: 1\r\nContent-Length: 2\r\n\r\nok", statuses: [200, 502]),
        Case(name: "a field name with a space", reply: head + "X Bad: 1\r\nContent-Length: 2\r\n\r\nok", statuses: [200, 502]),
        Case(name: "a 1 MB field value", reply: head + "X-Big: " + String(repeating: "b", count: 1 << 20) + "\r\nContent-Length: 2\r\n\r\nok", statuses: [200, 502]),
        Case(name: "20,000 field lines", reply: head + String(repeating: "X-Many: 1\r\n", count: 20_000) + "Content-Length: 2\r\n\r\nok", statuses: [200, 502]),
        // Status lines.
        Case(name: "a four-digit status", reply: "HTTP/1.1 2000 OK\r\nContent-Length: 2\r\n\r\nok", statuses: [502]),
        Case(name: "an unknown HTTP version", reply: "HTTP/9.9 200 OK\r\nContent-Length: 2\r\n\r\nok", statuses: [200, 502], mayBeStored: true),
        Case(name: "no status line at all", reply: "hello\r\n\r\n", statuses: [502]),
        // Interim responses.
        Case(name: "a storm of 2,000 interim responses", reply: String(repeating: "HTTP/1.1 100 Continue\r\n\r\n", count: 2_000) + good, statuses: [200, 502], mayBeStored: true),
        Case(
            name: "103 Early Hints with 5,000 fields",
            reply: "HTTP/1.1 103 Early Hints\r\n" + String(repeating: "Link: </a.css>; rel=preload\r\n", count: 5_000) + "\r\n" + good,
            statuses: [200, 502], mayBeStored: true
        ),
        Case(name: "interim responses that never end", reply: String(repeating: "HTTP/1.1 100 Continue\r\n\r\n" + RawOrigin.pause, count: 40), statuses: [502, 504]),
    ]

    /// The proxy's transport gives up on a head after 2 s (``ProxyTests/Running``).
    @Test(arguments: cases)
    func aHostileOriginPoisonsNothing(_ hostile: Case) async throws {
        let origin = try RawOrigin(routes: ["/hostile": hostile.reply, "/good": Self.good], pauseLength: .milliseconds(100))
        defer { origin.stop() }
        try await ProxyTests.Running.with(upstream: "http://127.0.0.1:\(origin.port)") { running in
            for attempt in 1...2 {
                let answer = await Self.fetch("/hostile", port: running.port)
                #expect(hostile.statuses.contains(answer.status), "try \(attempt): status \(answer.status.map(String.init) ?? "none")")
                #expect(!answer.raw.contains("Injected") && !answer.raw.contains("evil"), "try \(attempt): the origin's bytes split the answer: \(answer.raw.prefix(300).debugDescription)")
                #expect(answer.raw.components(separatedBy: "HTTP/1.").count <= 2, "try \(attempt): a second response in the answer: \(answer.raw.prefix(300).debugDescription)")
                #expect(answer.fieldLines.allSatisfy { !$0.utf8.contains(0) && !$0.utf8.contains(13) }, "a field line carries NUL or CR")
            }
            if !hostile.mayBeStored {
                #expect(origin.requestLines(for: "/hostile").count >= 2, "the second request was answered from the cache: the hostile response was stored")
            }
            let good = await Self.fetch("/good", port: running.port)
            #expect(good.status == 200 && good.raw.hasSuffix("\r\n\r\nok"), "the proxy no longer serves: \(good.raw.prefix(200).debugDescription)")
        }
    }

    /// An origin that never ends a chunked body: the client gets each part as it comes and
    /// leaves part way; nothing is stored, and the proxy goes on serving.
    @Test func anEndlessChunkedBodyIsPassedOnAndNeverStored() async throws {
        let endless = Self.chunked + String(repeating: "4\r\nmore\r\n" + RawOrigin.pause, count: 600)
        let origin = try RawOrigin(routes: ["/endless": endless, "/good": Self.good], pauseLength: .milliseconds(50))
        defer { origin.stop() }
        try await ProxyTests.Running.with(upstream: "http://127.0.0.1:\(origin.port)") { running in
            for _ in 1...2 {
                let client = try RawClient(port: running.port)
                client.send("GET /endless HTTP/1.1\r\nHost: a\r\n\r\n")
                #expect(await client.waitForUnreadBytes(200), "the first parts did not arrive before the body ended")
                client.hangUp()
            }
            #expect(origin.requestLines(for: "/endless").count == 2)
            let good = await Self.fetch("/good", port: running.port)
            #expect(good.status == 200)
        }
    }

    /// What one `GET` on a connection of its own gave: every byte until the proxy closed it
    /// (or 5 s passed), its status, and its field lines.
    struct Answer {
        var raw: String
        var status: Int?
        var fieldLines: [String]
    }

    static func fetch(_ path: String, port: Int) async -> Answer {
        guard let client = try? RawClient(port: port, patience: 5) else { return Answer(raw: "", status: nil, fieldLines: []) }
        client.send("GET \(path) HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
        let raw = await client.readToEnd()
        let head = raw.components(separatedBy: "\r\n\r\n").first ?? ""
        let lines = head.components(separatedBy: "\r\n")
        let status = lines.first.flatMap { $0.hasPrefix("HTTP/1.1 ") ? Int($0.dropFirst(9).prefix(3)) : nil }
        return Answer(raw: raw, status: status, fieldLines: Array(lines.dropFirst()))
    }
}
