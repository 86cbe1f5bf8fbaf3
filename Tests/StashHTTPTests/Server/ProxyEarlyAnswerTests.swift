import Foundation
import HTTPTypes
import StashCore
import StashHTTP
import StashTestSupport
import Testing

/// Origins answer uploads before reading them all the time (`401` before an upload, `413`,
/// `500`): the upstream client then goes on reading the request's body after the answer
/// came back, while the server wants the connection for the client's next request. Each
/// case runs a `stash http-proxy` process, so that a proxy that dies fails the case (and
/// not the whole test run), and checks that every upload is answered and that the proxy
/// still serves afterwards.
@Suite(.serialized)
struct ProxyEarlyAnswerTests {
    static let uploadSize = 5 << 20

    /// An early `500` with a body, as the origin sends it before (or while) reading.
    static let serverError = "HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/plain\r\nContent-Length: 6\r\n\r\nbroken"

    /// A `stash http-proxy` process in front of `origin` for the length of `body`.
    static func withProxy(
        to origin: RawOrigin, mode: HTTPCacheMode, _ body: (_ port: Int) async throws -> Void
    ) async throws {
        let folder = TemporaryFolder("proxy-early-answer")
        let child = try ChildProcess(BuiltProducts.executable("stash"), [
            "http-proxy", "--listen", "127.0.0.1:0", "--upstream", "http://127.0.0.1:\(origin.port)", "--root", folder.url.path,
            mode == .shared ? "--shared" : "--private",
        ])
        defer {
            child.kill()
            child.wait()
        }
        let banner = await child.nextLine() ?? ""
        guard let range = banner.range(of: "listening on http://127.0.0.1:"), let port = Int(banner[range.upperBound...].prefix { $0.isNumber }) else {
            Issue.record("the proxy did not start: \(banner)")
            return
        }
        try await body(port)
        #expect(kill(child.processIdentifier, 0) == 0, "the proxy process died: \(child.standardError())")
    }

    /// Uploads `size` bytes with `method`, announced (`Content-Length`) or chunked, on a
    /// connection of its own, reading the answer while the body goes out (a client reads an
    /// early answer as it comes), and returns its status (`nil`: no answer, the connection
    /// failed first), how much of the body the proxy took, and how long sending took.
    static func upload(_ method: String, size: Int = uploadSize, announced: Bool, port: Int) async throws -> (status: Int?, sent: Int, took: Duration) {
        let started = ContinuousClock.now
        let client = try RawClient(port: port, patience: 30)
        let framing = announced ? "Content-Length: \(size)" : "Transfer-Encoding: chunked"
        client.send("\(method) /upload HTTP/1.1\r\nHost: a\r\n\(framing)\r\n\r\n")
        // The body goes out from a thread started now: an `async let` would wait for a thread
        // of the cooperative pool, and the proxy drops a client that pauses mid-body.
        let sending = ThreadTask { client.blockingSend(filler: size, chunked: !announced) }
        let response = await client.response()
        let status = response.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") }
        let taken = await sending.value
        return (status, taken, ContinuousClock.now - started)
    }

    /// Whether the proxy still answers a plain request (its upstream answers `500` to
    /// everything here, which the proxy passes on).
    static func stillServes(port: Int) async throws -> Bool {
        let answer = try await RawClient.exchange(port: port, method: "GET", path: "/after", host: "a")
        return answer.status == 500 && answer.body == "broken"
    }

    /// Forty uploads of 5 MB, `PUT` and `POST`, announced and chunked, to an origin that
    /// answers `500` before reading a byte of them: each gets an answer, in both modes, and
    /// the proxy goes on serving. Then clients that hang up part way through an upload.
    @Test(arguments: HTTPCacheMode.allCases)
    func fortyEarlyAnswersLeaveTheProxyServing(mode: HTTPCacheMode) async throws {
        let origin = try RawOrigin(replies: [Self.serverError], bodyReading: .none)
        defer { origin.stop() }
        try await Self.withProxy(to: origin, mode: mode) { port in
            for index in 0..<40 {
                let method = index % 2 == 0 ? "PUT" : "POST"
                let (status, sent, took) = try await Self.upload(method, announced: index % 4 < 2, port: port)
                #expect(status == 500, "upload \(index + 1) (\(method), \(index % 4 < 2 ? "announced" : "chunked")): \(status.map(String.init) ?? "no answer")")
                // The proxy read (and dropped) the rest of the body after its answer.
                #expect(sent == Self.uploadSize, "upload \(index + 1): the proxy took \(sent) bytes of \(Self.uploadSize) in \(took)")
            }
            for index in 0..<10 {
                let client = try RawClient(port: port)
                let framing = index % 2 == 0 ? "Content-Length: \(Self.uploadSize)\r\n" : "Transfer-Encoding: chunked\r\n"
                client.send("PUT /upload HTTP/1.1\r\nHost: a\r\n\(framing)\r\n")
                if index % 2 == 1 { client.send("\(String(1 << 20, radix: 16))\r\n") }
                _ = await client.send(filler: 1 << 20)
                client.hangUp()
            }
            let serves = try await Self.stillServes(port: port)
                #expect(serves)
        }
    }

    /// The origin answers before the body, part way through it (after 1 MB) or after all
    /// of it, then hangs up or keeps reading: every `PUT`, `POST` and `PATCH`, announced
    /// or chunked (chunked only when the origin answers before reading it all, as this
    /// origin cannot read a chunked body), gets the origin's answer or a `502`, never a
    /// dead proxy.
    @Test(arguments: [RawOrigin.BodyReading.none, .prefix(1 << 20), .whole], [true, false])
    func originsAnsweringAnyTimeDuringAnUpload(reading: RawOrigin.BodyReading, hangsUp: Bool) async throws {
        let origin = try RawOrigin(replies: [Self.serverError + (hangsUp ? RawOrigin.hangUp : "")], bodyReading: reading)
        defer { origin.stop() }
        for mode in HTTPCacheMode.allCases {
            try await Self.withProxy(to: origin, mode: mode) { port in
                for method in ["PUT", "POST", "PATCH"] {
                    for announced in [true, false] {
                        if case .whole = reading, !announced { continue }
                        let (status, _, _) = try await Self.upload(method, announced: announced, port: port)
                        // An origin that hangs up on unread bytes resets the connection, which
                        // may reach the proxy before its answer: then the client gets 502. One
                        // that hangs up after a whole exchange leaves a pooled connection that
                        // may be found closed only when the next request is on it: a `PUT` is
                        // sent again on another, a `POST` or `PATCH` is not (502).
                        let expected: Set<Int> = hangsUp && (!isWhole(reading) || method != "PUT") ? [500, 502] : [500]
                        #expect(status.map(expected.contains) == true, "\(mode) \(method) \(announced ? "announced" : "chunked"): \(status.map(String.init) ?? "no answer")")
                    }
                }
                let serves = try await Self.stillServes(port: port)
                #expect(serves)
            }
        }
    }

    /// Requests whose bodies the origin never asked for leave the connection usable: a
    /// second request on the same client connection after an early answer is answered.
    @Test func theClientConnectionCarriesTheNextRequest() async throws {
        let origin = try RawOrigin(replies: [Self.serverError], bodyReading: .none)
        defer { origin.stop() }
        try await Self.withProxy(to: origin, mode: .shared) { port in
            let client = try RawClient(port: port)
            client.send("POST /upload HTTP/1.1\r\nHost: a\r\nContent-Length: \(1 << 20)\r\n\r\n")
            #expect(await client.send(filler: 1 << 20) == 1 << 20)
            #expect(await client.response()?.hasPrefix("HTTP/1.1 500") == true)
            client.send("GET /next HTTP/1.1\r\nHost: a\r\n\r\n")
            #expect(await client.response()?.hasSuffix("broken") == true)
        }
    }

    /// A client that stops sending the rest of a body answered early is not waited for
    /// as long as a body's own timeout (30 s): the proxy drops the connection once no byte
    /// has come for 5 s (nginx's `lingering_timeout`).
    @Test func aClientThatStopsSendingAfterAnEarlyAnswerIsDisconnected() async throws {
        let origin = try RawOrigin(replies: [Self.serverError], bodyReading: .none)
        defer { origin.stop() }
        try await Self.withProxy(to: origin, mode: .shared) { port in
            let client = try RawClient(port: port, patience: 20)
            client.send("PUT /upload HTTP/1.1\r\nHost: a\r\nContent-Length: \(Self.uploadSize)\r\n\r\n")
            #expect(await client.send(filler: 1 << 20) == 1 << 20)
            #expect(await client.response()?.hasPrefix("HTTP/1.1 500") == true)
            #expect(await client.isClosedByPeer(), "the proxy still waits for the rest of the body")
        }
    }

    private func isWhole(_ reading: RawOrigin.BodyReading) -> Bool {
        if case .whole = reading { return true }
        return false
    }
}
