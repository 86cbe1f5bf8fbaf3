import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing
@testable import StashHTTPServer

/// ``FreshHitHandler`` event by event on an `EmbeddedChannel`, with the embedded loop's own
/// clock: how it keeps the connection's ``IdleTimeout`` once the connection has gone to the
/// decoder, and how it waits for a client that does not read. Requests for paths under `/hit` are fresh hits.
struct FreshHitHandlerTests {
    private struct Harness {
        let channel = EmbeddedChannel()
        let socket: EmbeddedProbes.Socket
        let tail = EmbeddedProbes.Tail<HTTPServerRequestPart>()

        init(idleTimeout: TimeAmount? = nil, highWatermark: Int = .max) throws {
            socket = EmbeddedProbes.Socket(highWatermark: highWatermark)
            let idle = idleTimeout.map(IdleTimeout.init(timeout:))
            let handler = FreshHitHandler(timeouts: nil, idle: idle) { head in
                guard head.uri.hasPrefix("/hit") else { return nil }
                return (HTTPResponseHead(version: .http1_1, status: .ok, headers: ["X-Path": head.uri]), ByteBuffer(string: "body"))
            }
            try channel.pipeline.syncOperations.addHandlers([socket, handler, tail])
            try EmbeddedProbes.connect(channel)
            // Started by the raw handler in front, in the proxy.
            idle?.start(on: channel)
        }

        func request(_ path: String) throws {
            try channel.writeInbound(HTTPServerRequestPart.head(HTTPRequestHead(version: .http1_1, method: .GET, uri: path)))
            try channel.writeInbound(HTTPServerRequestPart.end(nil))
            channel.pipeline.fireChannelReadComplete()
        }

        /// The responder's answer to a request handed on, as HummingbirdCore writes it.
        func respond() throws {
            try channel.writeOutbound(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: .ok)))
            try channel.writeOutbound(HTTPServerResponsePart.end(nil))
        }

        func advance(_ amount: TimeAmount) { channel.embeddedEventLoop.advanceTime(by: amount) }

        /// The paths of the hits answered since the last call.
        func answered() throws -> [String] {
            var paths: [String] = []
            while let part = try channel.readOutbound(as: HTTPServerResponsePart.self) {
                if case .head(let head) = part, let path = head.headers.first(name: "X-Path") { paths.append(path) }
            }
            return paths
        }

        var handedOn: [String] {
            tail.parts.compactMap { part in
                if case .head(let head) = part { return head.uri }
                return nil
            }
        }
    }

    @Test func idleConnectionClosesAtTheTimeoutExactly() throws {
        let harness = try Harness(idleTimeout: .seconds(10))
        harness.advance(.seconds(10) - .nanoseconds(1))
        #expect(harness.channel.isActive)
        harness.advance(.nanoseconds(1))
        #expect(!harness.channel.isActive)
    }

    /// Hits answered here count as activity, and the timeout runs again from the last one.
    @Test func hitsKeepTheConnectionOpen() throws {
        let harness = try Harness(idleTimeout: .seconds(10))
        for _ in 0..<5 {
            harness.advance(.seconds(6))
            try harness.request("/hit")
            #expect(try harness.answered() == ["/hit"])
        }
        harness.advance(.seconds(10) - .nanoseconds(1))
        #expect(harness.channel.isActive)
        harness.advance(.nanoseconds(1))
        #expect(!harness.channel.isActive)
    }

    /// A request handed on and still being answered is never idle, however long its
    /// response takes; the timeout runs from the end of that response.
    @Test func requestBeingAnsweredIsNotCut() throws {
        let harness = try Harness(idleTimeout: .seconds(10))
        try harness.request("/miss")
        #expect(harness.handedOn == ["/miss"])
        harness.advance(.seconds(60))
        #expect(harness.channel.isActive)
        try harness.respond()
        harness.advance(.seconds(10) - .nanoseconds(1))
        #expect(harness.channel.isActive)
        harness.advance(.nanoseconds(1))
        #expect(!harness.channel.isActive)
    }

    /// A hit behind a request handed on waits its turn in the responder.
    @Test func hitBehindAMissIsHandedOn() throws {
        let harness = try Harness()
        try harness.request("/miss")
        try harness.request("/hit")
        #expect(harness.handedOn == ["/miss", "/hit"])
        #expect(try harness.answered().isEmpty)
    }

    /// While the client does not read, hits are held (with every part after them, a miss
    /// included) and no more bytes are read; once it reads, they are taken in order.
    @Test func hitsWaitForAClientThatDoesNotRead() throws {
        let harness = try Harness(highWatermark: 3)
        try harness.request("/hit1")
        try harness.request("/hit2")
        try harness.request("/miss")
        try harness.request("/hit3")
        #expect(try harness.answered() == ["/hit1"])
        #expect(harness.handedOn.isEmpty)
        let reads = harness.socket.reads
        harness.channel.read()
        #expect(harness.socket.reads == reads)
        harness.socket.drain(harness.channel)
        #expect(try harness.answered() == ["/hit2"])
        #expect(harness.handedOn.isEmpty)
        harness.socket.drain(harness.channel)
        // The miss goes on, and the hit behind it follows it to the responder.
        #expect(harness.handedOn == ["/miss", "/hit3"])
        #expect(harness.socket.reads == reads + 1)
    }
}
