import Foundation
import HTTPTypes
import StashHTTP
import StashTestSupport
import Testing
@testable import StashHTTPServer

/// The proxy's timeouts and connection cap, against real sockets. Each test sets the limit
/// it checks to a fraction of a second and the others far beyond the receive patience of
/// ``RawClient`` (10 s), so a close can only come from the limit under test.
struct ProxyLimitsTests {
    private static let long = Duration.seconds(60)

    /// A client that sends its request head slowly is disconnected after the header timeout,
    /// without an answer; one that sends it in time is answered on the same kind of connection.
    @Test func slowRequestHeadIsDisconnected() async throws {
        let configuration = HTTPCachingProxy.Configuration(headerTimeout: .milliseconds(200), idleTimeout: Self.long)
        try await ProxyTests.Running.with(configuration: configuration) { running in
            running.origin.set("/page", .ok([("Cache-Control", "max-age=60")]))
            let slow = try RawClient(port: running.port)
            #expect(slow.send("GET /page HTTP/1.1\r\nHost: 127.0.0.1\r\n"))
            #expect(await slow.isClosedByPeer())
            #expect(running.origin.requests("/page").isEmpty)

            let prompt = try RawClient(port: running.port)
            #expect(prompt.send("GET /page HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
            #expect(await prompt.response()?.hasPrefix("HTTP/1.1 200") == true)
            // The clock restarts for the next head on the same connection.
            #expect(prompt.send("GET /page HTTP/1.1\r\nHo"))
            #expect(await prompt.isClosedByPeer())

            // Empty lines before the request line (which the decoder skips) do not stop it.
            let blank = try RawClient(port: running.port)
            #expect(blank.send("\r\n\r\n"))
            #expect(blank.send("GET /page HTTP/1.1\r\n"))
            #expect(await blank.isClosedByPeer())
            // and a head after them is answered.
            let late = try RawClient(port: running.port)
            #expect(late.send("\r\n\r\nGET /page HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
            #expect(await late.response()?.hasPrefix("HTTP/1.1 200") == true)
        }
    }

    /// A client that stops reading a large miss is disconnected once the proxy could send it
    /// nothing for the send timeout, and the proxy gives up the upstream body: the origin sees
    /// its 64 MB body abandoned (loopback buffers between origin and proxy hold about 10 MB)
    /// and the client finds the connection ended well before the body's end (its 4 KB receive
    /// buffer and the proxy's socket hold a few hundred KB at most), where without the limit
    /// it would get the whole body whenever it read again. Other clients are served meanwhile.
    @Test func clientThatStopsReadingIsDisconnectedAfterTheSendTimeout() async throws {
        let seed = SeededGenerator.freshSeed(for: "clientThatStopsReadingIsDisconnectedAfterTheSendTimeout")
        let origin = try await PatternOrigin.start(seed: seed)
        defer { origin.stop() }
        origin.set("/big", .init(size: 64_000_000, cacheControl: "no-store"))
        origin.set("/small", .init(size: 1_000))
        // The upstream read timeout far beyond the wait below, so that only the send timeout
        // can give up the body (the proxy stops reading the origin while the client does).
        let configuration = HTTPCachingProxy.Configuration(
            headerTimeout: Self.long, idleTimeout: Self.long, upstreamReadTimeout: .seconds(600), sendTimeout: .milliseconds(300)
        )
        try await ProxyTests.Running.with(upstream: origin.base, configuration: configuration) { running in
            let stuck = try RawClient(port: running.port, receiveBuffer: 4096)
            #expect(stuck.send("GET /big HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
            // The answer is flowing once its first kilobytes wait in the client's buffer. The
            // cut shows at the origin: the proxy gives up the upstream body it can no longer
            // send (on a busy machine the body may take seconds to fill the buffers first).
            #expect(await stuck.waitForUnreadBytes(2048))
            #expect(await origin.waitUntilAbandoned("/big", seconds: 30), "the proxy never gave up on the stuck client's answer")
            let (small, checker) = try await ProxyStreamingTests.withTransport { transport in
                try await ProxyStreamingTests.fetch("/small", port: running.port, seed: seed, via: transport)
            }
            #expect(small.status == .ok && checker.count == 1_000 && checker.mismatchAt == nil)
            #expect(await stuck.response() == nil, "the whole body arrived: the connection was never cut")
        }
    }

    /// A keep-alive connection with no request is closed after the idle timeout.
    @Test func idleKeepAliveConnectionIsClosed() async throws {
        let configuration = HTTPCachingProxy.Configuration(headerTimeout: Self.long, idleTimeout: .milliseconds(200))
        try await ProxyTests.Running.with(configuration: configuration) { running in
            running.origin.set("/page", .ok([("Cache-Control", "max-age=60")]))
            let client = try RawClient(port: running.port)
            #expect(client.send("GET /page HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
            #expect(await client.response()?.hasPrefix("HTTP/1.1 200") == true)
            #expect(await client.isClosedByPeer())
            // A connection that never sends a request is closed too.
            #expect(try await RawClient(port: running.port).isClosedByPeer())
        }
    }

    /// An upstream that stalls before its head is cut after the read timeout: `504`, not
    /// stored, and the next request goes upstream again. (Without the timeout the 5 s pause
    /// would end in a whole `200`; the 1 s timeout leaves a loaded machine time to pass on a
    /// head that comes at once.)
    @Test func upstreamStallingBeforeItsHeadIsGatewayTimeout() async throws {
        let origin = try RawOrigin(replies: [
            "\(RawOrigin.pause)HTTP/1.1 200 OK\r\nCache-Control: max-age=600\r\nContent-Length: 10\r\n\r\nhelloworld",
        ], pauseLength: .seconds(5))
        defer { origin.stop() }
        let configuration = HTTPCachingProxy.Configuration(upstreamReadTimeout: .seconds(1))
        try await ProxyTests.Running.with(upstream: "http://127.0.0.1:\(origin.port)", configuration: configuration) { running in
            let (response, body) = try await running.send(.get, "/stall")
            #expect(response.status == .gatewayTimeout)
            #expect(body == "gateway timeout\n")
            #expect(response.headerFields[HTTPField.Name("Cache-Status")!] == "stash; fwd=miss; detail=\"upstream timeout\"")
            _ = try await running.send(.get, "/stall")
            #expect(origin.requestLines == ["GET /stall HTTP/1.1", "GET /stall HTTP/1.1"])
        }
    }

    /// An upstream that stalls mid-body is cut after the read timeout too: the head went out
    /// already, so the client's connection closes before the announced length; nothing is
    /// stored and the next request goes upstream again.
    @Test func upstreamStallingMidBodyClosesTheClient() async throws {
        let origin = try RawOrigin(replies: [
            "HTTP/1.1 200 OK\r\nCache-Control: max-age=600\r\nContent-Length: 10\r\n\r\nhello\(RawOrigin.pause)world",
        ], pauseLength: .seconds(5))
        defer { origin.stop() }
        let configuration = HTTPCachingProxy.Configuration(upstreamReadTimeout: .seconds(1))
        try await ProxyTests.Running.with(upstream: "http://127.0.0.1:\(origin.port)", configuration: configuration) { running in
            await #expect(throws: (any Error).self) { try await running.send(.get, "/stall") }
            await #expect(throws: (any Error).self) { try await running.send(.get, "/stall") }
            #expect(origin.requestLines == ["GET /stall HTTP/1.1", "GET /stall HTTP/1.1"])
        }
    }

    /// Past the cap a new connection is accepted and closed at once; once a slot frees, new
    /// connections are served again.
    @Test func connectionsPastTheCapAreClosed() async throws {
        let configuration = HTTPCachingProxy.Configuration(headerTimeout: Self.long, idleTimeout: Self.long, maximumConnections: 1)
        try await ProxyTests.Running.with(configuration: configuration) { running in
            running.origin.set("/page", .ok([("Cache-Control", "max-age=60")]))
            var first: RawClient? = try RawClient(port: running.port)
            #expect(first?.send("GET /page HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n") == true)
            #expect(await first?.response()?.hasPrefix("HTTP/1.1 200") == true)

            let refused = try RawClient(port: running.port)
            #expect(await refused.isClosedByPeer())
            // The open connection is still served.
            #expect(first?.send("GET /page HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n") == true)
            #expect(await first?.response()?.hasPrefix("HTTP/1.1 200") == true)

            first = nil
            // The slot is released when the server sees the close, which it does on its own
            // event loop: try until a connection is admitted (bounded).
            var served = false
            for _ in 0..<100 where !served {
                let next = try RawClient(port: running.port)
                next.send("GET /page HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                served = await next.response()?.hasPrefix("HTTP/1.1 200") == true
                if !served { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(served)
        }
    }
}
