import Foundation
import HTTPTypes
import NIOCore
import StashHTTP
import StashHTTPAsyncClient
import StashTestSupport
import Testing

/// The keep-alive race: an origin closes an idle connection just as the pool hands it to the
/// next request. Whether the request then fails on a closed channel before it is written, is
/// written into a closing socket, or meets the close first, it never reached the origin, so
/// an idempotent request is sent again on a fresh connection rather than answered 502.
@Suite(.timeLimit(.minutes(2)))
struct AsyncHTTPClientTransportRetryTests {
    @Test func anOriginThatClosesEachConnectionAfterItsAnswerNeverFailsAGet() async throws {
        // Every answer keeps the connection open by its headers and then hangs up at once,
        // so each next request races the close of the connection the pool kept.
        let origin = try RawOrigin(replies: ["HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok\(RawOrigin.hangUp)"])
        defer { origin.stop() }
        let transport = AsyncHTTPClientTransport(timeout: .seconds(10))
        var failures: [String] = []
        // Most requests that meet the race find the channel closed; now and then one meets
        // the reset instead.
        for index in 0..<1_000 {
            let request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(origin.port)", path: "/\(index)")
            do {
                let (response, body) = try await transport.send(request, body: Data())
                if response.status != .ok || body != Data("ok".utf8) { failures.append("\(index): \(response.status)") }
            } catch {
                failures.append("\(index): \(error)")
            }
        }
        try await transport.shutdown()
        #expect(failures.isEmpty, "\(failures.count) of 1,000 requests failed, first: \(failures.prefix(3))")
    }
}
