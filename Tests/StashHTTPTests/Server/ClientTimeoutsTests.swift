import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing
@testable import StashHTTPServer

/// ``ClientTimeouts`` on an `EmbeddedChannel`, with the embedded loop's own clock: the head
/// clock runs from a head's first byte to its end, the send clock while the channel is not
/// writable.
struct ClientTimeoutsTests {
    private static func connected() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel(handler: ClientTimeouts(headerTimeout: .seconds(10), sendTimeout: .seconds(60)))
        try EmbeddedProbes.connect(channel)
        return channel
    }

    private static func read(_ text: String, on channel: EmbeddedChannel) throws {
        try channel.writeInbound(ByteBuffer(string: text))
        _ = try channel.readInbound(as: ByteBuffer.self)
    }

    @Test func headNotWholeInTimeClosesTheConnection() throws {
        let channel = try Self.connected()
        try Self.read("GET / HTTP/1.1\r\n", on: channel)
        channel.embeddedEventLoop.advanceTime(by: .seconds(5))
        try Self.read("Host: a\r\n", on: channel)
        channel.embeddedEventLoop.advanceTime(by: .seconds(5) - .nanoseconds(1))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .nanoseconds(1))
        #expect(!channel.isActive)
    }

    /// A head whole in time (here in two pieces, its end split between them) stops the
    /// clock; a waiting connection is the idle timeout's business, not this one's.
    @Test func headWholeInTimeStopsTheClock() throws {
        let channel = try Self.connected()
        try Self.read("GET / HTTP/1.1\r\nHost: a\r\n\r", on: channel)
        channel.embeddedEventLoop.advanceTime(by: .seconds(9))
        try Self.read("\n", on: channel)
        channel.embeddedEventLoop.advanceTime(by: .seconds(600))
        #expect(channel.isActive)
        // The next head, once a response went out, has a clock of its own.
        try channel.writeOutbound(ByteBuffer(string: "HTTP/1.1 200 OK\r\n\r\n"))
        try Self.read("GET /next HTTP/1.1\r\n", on: channel)
        channel.embeddedEventLoop.advanceTime(by: .seconds(10))
        #expect(!channel.isActive)
    }

    /// `ClientTimeouts` first, then NIO's decoder and ``RequestGate`` (which tells the
    /// timeouts of each decoded head) as on a connection handed to the decoder.
    private static func connectedWithDecoder() throws -> EmbeddedChannel {
        let timeouts = ClientTimeouts(headerTimeout: .seconds(10), sendTimeout: .seconds(60))
        let channel = EmbeddedChannel()
        let admission = RequestAdmission(upstreamAuthority: "127.0.0.1:8000", virtualHosts: [])
        try channel.pipeline.syncOperations.addHandlers([
            timeouts, ByteToMessageHandler(HTTPRequestDecoder()), RequestGate(admission: admission, timeouts: timeouts),
        ])
        try EmbeddedProbes.connect(channel)
        return channel
    }

    /// Writes response bytes as the handlers behind the timeouts do.
    private static func respond(_ text: String, on channel: EmbeddedChannel) throws {
        let decoder = try channel.pipeline.syncOperations.context(handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self)
        decoder.writeAndFlush(NIOAny(ByteBuffer(string: text)), promise: nil)
    }

    /// A head pipelined into the read that ends the head before it, whose last piece is a
    /// bare line end, is not seen to start or to end by the byte scanner: the decoder's
    /// report of it stops the clock that piece started, and the idle connection stays open
    /// past the header timeout.
    @Test func pipelinedHeadSplitAfterAnotherStopsTheClockWhenDecoded() throws {
        let channel = try Self.connectedWithDecoder()
        try channel.writeInbound(ByteBuffer(string: "GET /a HTTP/1.1\r\nHost: a\r\n\r\nGET /b HTTP/1.1\r\nHost: a\r\n"))
        try Self.respond("HTTP/1.1 200 OK\r\n\r\n", on: channel)
        try channel.writeInbound(ByteBuffer(string: "\r\n"))
        try Self.respond("HTTP/1.1 200 OK\r\n\r\n", on: channel)
        channel.embeddedEventLoop.advanceTime(by: .seconds(600))
        #expect(channel.isActive)
        // A head sent slowly after that response still meets the clock.
        try channel.writeInbound(ByteBuffer(string: "GET /c HTTP/1.1\r\n"))
        channel.embeddedEventLoop.advanceTime(by: .seconds(10))
        #expect(!channel.isActive)
    }

    /// The writes of a response still going out say nothing of a head arriving meanwhile:
    /// the head's clock runs from its first byte through them.
    @Test func responseWritesDoNotStopTheClockOfAHeadArriving() throws {
        let channel = try Self.connectedWithDecoder()
        try channel.writeInbound(ByteBuffer(string: "GET /big HTTP/1.1\r\nHost: a\r\n\r\n"))
        try Self.respond("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", on: channel)
        try channel.writeInbound(ByteBuffer(string: "GET /x HTTP/1.1\r\n"))
        channel.embeddedEventLoop.advanceTime(by: .seconds(5))
        try Self.respond("5\r\nhello\r\n", on: channel)
        channel.embeddedEventLoop.advanceTime(by: .seconds(5) - .nanoseconds(1))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .nanoseconds(1))
        #expect(!channel.isActive)
    }

    /// An answer written before the request's body has all arrived (an origin refusing an
    /// upload) does not turn the rest of the body into a "head" on the clock: an upload
    /// going on for longer than the header timeout after an early answer stays open, and the
    /// clock waits for the next head once the body has ended.
    @Test func theBodyAfterAnEarlyAnswerIsNoHead() throws {
        let channel = try Self.connectedWithDecoder()
        try channel.writeInbound(ByteBuffer(string: "PUT /up HTTP/1.1\r\nHost: a\r\nContent-Length: 40\r\n\r\n0123456789"))
        try Self.respond("HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n", on: channel)
        for _ in 0..<2 {
            channel.embeddedEventLoop.advanceTime(by: .seconds(8))
            try channel.writeInbound(ByteBuffer(string: "0123456789"))
        }
        channel.embeddedEventLoop.advanceTime(by: .seconds(8))
        #expect(channel.isActive, "the body after an early answer was timed as a head")
        try channel.writeInbound(ByteBuffer(string: "0123456789"))
        channel.embeddedEventLoop.advanceTime(by: .seconds(60))
        #expect(channel.isActive, "no head has started: an idle connection is not this clock's business")
        // A head sent slowly after the body's end meets the clock again.
        try channel.writeInbound(ByteBuffer(string: "GET /slow HTTP/1.1\r\n"))
        channel.embeddedEventLoop.advanceTime(by: .seconds(10))
        #expect(!channel.isActive)
    }

    @Test func clientNotReadingForTheSendTimeoutIsClosed() throws {
        let channel = try Self.connected()
        channel.isWritable = false
        channel.pipeline.fireChannelWritabilityChanged()
        channel.embeddedEventLoop.advanceTime(by: .seconds(60) - .nanoseconds(1))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .nanoseconds(1))
        #expect(!channel.isActive)
    }

    /// A client that reads, however slowly, restarts the send clock each time it has taken
    /// enough to make the channel writable again.
    @Test func slowButSteadyReaderIsNeverCut() throws {
        let channel = try Self.connected()
        for _ in 0..<20 {
            channel.isWritable = false
            channel.pipeline.fireChannelWritabilityChanged()
            channel.embeddedEventLoop.advanceTime(by: .seconds(50))
            channel.isWritable = true
            channel.pipeline.fireChannelWritabilityChanged()
        }
        #expect(channel.isActive)
    }
}
