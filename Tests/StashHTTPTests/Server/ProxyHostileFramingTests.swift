import Foundation
import HTTPTypes
import StashCore
import StashHTTP
import StashTestSupport
import Testing
@testable import StashHTTPServer

/// A client that frames its request the way no client should: chunk sizes that overflow,
/// go negative or are no number, endless chunk extensions, heads of a megabyte or of
/// twenty thousand fields. Each is answered with a 4xx (or the connection closes), no
/// request with such a body reaches the origin whole, and the proxy serves the next client.
@Suite(.serialized)
struct ProxyHostileFramingTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var request: String
        /// Legal, if odd: it may pass, as long as nothing else goes wrong.
        var isLegal = false
        /// The statuses it may get (no status: the connection closed before an answer).
        var statuses: Set<Int> = [400, 413, 431]
        var testDescription: String { name }
    }

    static let chunkedPost = "POST /upload HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"

    static let cases: [Case] = [
        Case(name: "a chunk size past 64 bits", request: chunkedPost + "FFFFFFFFFFFFFFFFFFFFFF\r\nabc\r\n0\r\n\r\n"),
        // 2^63 fits the decoder's 64 bits: a chunk far past the limit whose bytes never come,
        // which ends with the body's clock or the upstream's.
        Case(
            name: "a chunk of 2^63 bytes that never come", request: chunkedPost + "2\r\nok\r\n8000000000000000\r\nabc\r\n0\r\n\r\n",
            statuses: [400, 408, 413, 504]
        ),
        Case(name: "a negative chunk size", request: chunkedPost + "-1\r\nabc\r\n0\r\n\r\n"),
        Case(name: "a chunk size that is no number", request: chunkedPost + "2\r\nok\r\nzz\r\nabc\r\n0\r\n\r\n"),
        Case(name: "a 1 MB chunk extension", request: chunkedPost + "2;" + String(repeating: "e", count: 1 << 20) + "\r\nok\r\n0\r\n\r\n", isLegal: true),
        Case(name: "a chunk past the body size limit", request: chunkedPost + "100000\r\n" + String(repeating: "a", count: 1 << 20) + "\r\n0\r\n\r\n"),
        Case(name: "Content-Length and chunked together", request: "POST /upload HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"),
        Case(name: "two Content-Lengths", request: "POST /upload HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 5\r\n\r\nabcde"),
        Case(name: "a Content-Length past 64 bits", request: "POST /upload HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999999\r\n\r\nabc"),
        Case(name: "a 1 MB field value", request: "GET /x HTTP/1.1\r\nHost: a\r\nX-Big: " + String(repeating: "b", count: 1 << 20) + "\r\n\r\n"),
        Case(name: "20,000 field lines", request: "GET /x HTTP/1.1\r\nHost: a\r\n" + String(repeating: "X-Many: 1\r\n", count: 20_000) + "\r\n"),
        Case(name: "a 256 KB target", request: "GET /" + String(repeating: "t", count: 256 << 10) + " HTTP/1.1\r\nHost: a\r\n\r\n"),
        Case(name: "a NUL in a field value", request: "GET /x HTTP/1.1\r\nHost: a\r\nX-Bad: a\u{0}b\r\n\r\n"),
        Case(name: "a CR alone in a field value", request: "GET /x HTTP/1.1\r\nHost: a\r\nX-Bad: a\rInjected: 1\r\n\r\n"),
    ]

    @Test(arguments: cases)
    func malformedFramingIsRefused(_ hostile: Case) async throws {
        var configuration = HTTPCachingProxy.Configuration()
        configuration.maximumRequestBodySize = 512 << 10
        try await ProxyTests.Running.with(configuration: configuration) { running in
            running.origin.set("/upload", .ok([]))
            running.origin.set("/x", .ok([("Cache-Control", "max-age=600")]))
            let client = try RawClient(port: running.port, patience: 10)
            let sending = ThreadTask { client.send(hostile.request) }
            let response = await client.response()
            _ = await sending.value
            let status = response.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") }
            guard !hostile.isLegal || status != 200 else { return }
            #expect(status == nil || hostile.statuses.contains(status!), "status \(status.map(String.init) ?? "none"): \(response?.prefix(200).debugDescription ?? "")")
            #expect(await client.isClosedByPeer(), "the connection stays open after a malformed request")
            #expect(running.origin.requests("/upload").isEmpty, "a malformed body reached the origin whole")
            #expect(running.origin.requests("/x").isEmpty, "a malformed head reached the origin")
            let next = try await RawClient.exchange(port: running.port, method: "GET", path: "/x", host: "a")
            #expect(next.status == 200, "the proxy no longer serves")
        }
    }
}
