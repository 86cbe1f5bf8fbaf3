import NIOCore
import NIOEmbedded
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

    /// A head pipelined into the read that ends the head before it, whose last piece is a
    /// bare line end, is not seen to start or to end by the byte scanner: the response to it
    /// stops the clock that piece started, and the idle connection stays open past the
    /// header timeout. (On a connection handed to the decoder, where nothing else tells
    /// where heads start.)
    @Test func pipelinedHeadSplitAfterAnotherStopsTheClockWhenAnswered() throws {
        let channel = try Self.connected()
        try Self.read("GET /a HTTP/1.1\r\nHost: a\r\n\r\nGET /b HTTP/1.1\r\nHost: a\r\n", on: channel)
        try channel.writeOutbound(ByteBuffer(string: "HTTP/1.1 200 OK\r\n\r\n"))
        try Self.read("\r\n", on: channel)
        try channel.writeOutbound(ByteBuffer(string: "HTTP/1.1 200 OK\r\n\r\n"))
        channel.embeddedEventLoop.advanceTime(by: .seconds(600))
        #expect(channel.isActive)
        // A head sent slowly after that response still meets the clock.
        try Self.read("GET /c HTTP/1.1\r\n", on: channel)
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
