import HTTPTypes
import NIOCore
import NIOEmbedded
import StashHTTPWire
import Testing
@testable import StashHTTPServer

/// ``RawHitHandler`` event by event on an `EmbeddedChannel`: which bytes it answers, which
/// reach the decoder behind it, in which pieces, and how it waits for a client that does not
/// read. Requests for paths under `/hit` are fresh hits; every other one is a miss.
struct RawHitHandlerTests {
    private struct Harness {
        let channel: EmbeddedChannel
        let socket: EmbeddedProbes.Socket
        let tail = EmbeddedProbes.Tail<ByteBuffer>()

        /// How many times the decoder was installed.
        let installs = Counter()

        final class Counter {
            var count = 0
        }

        init(
            highWatermark: Int = .max, idleTimeout: TimeAmount? = nil, headerTimeout: TimeAmount = .seconds(600),
            sendTimeout: TimeAmount = .seconds(600)
        ) throws {
            channel = EmbeddedChannel()
            socket = EmbeddedProbes.Socket(highWatermark: highWatermark)
            let installs = installs
            let timeouts = ClientTimeouts(headerTimeout: headerTimeout, sendTimeout: sendTimeout)
            let raw = RawHitHandler(timeouts: timeouts, idle: idleTimeout.map(IdleTimeout.init(timeout:))) { request in
                let path = request.path
                guard path.hasPrefix("/hit") else { return nil }
                return (ByteBuffer(string: "\(request.method) \(path);"), request.method == .head ? nil : ByteBuffer(string: "body;"))
            } installDecoder: { _ in
                installs.count += 1
            }
            try channel.pipeline.syncOperations.addHandlers([socket, raw, tail])
            try EmbeddedProbes.connect(channel)
        }

        /// One read of `text` from the socket, as NIO delivers it: the bytes, then the end of the read.
        func read(_ text: String) throws {
            try channel.writeInbound(ByteBuffer(string: text))
            channel.pipeline.fireChannelReadComplete()
        }

        var handedOn: String { tail.parts.map { String(buffer: $0) }.joined() }
    }

    private static func head(_ path: String, method: String = "GET") -> String {
        "\(method) \(path) HTTP/1.1\r\nHost: a\r\nAccept: */*\r\n\r\n"
    }

    @Test func pipelinedHitsInOneReadAreAnsweredInOrderAndReachNothingBehind() throws {
        let harness = try Harness()
        try harness.read(Self.head("/hit1") + Self.head("/hit2", method: "HEAD") + Self.head("/hit3"))
        #expect(try EmbeddedProbes.written(harness.channel) == ["GET /hit1;", "body;", "HEAD /hit2;", "GET /hit3;", "body;"])
        #expect(harness.tail.parts.isEmpty)
        // A read answered whole is no event of the handlers behind.
        #expect(harness.tail.readCompletes == 0)
    }

    /// Split at every byte, a head is answered once it is whole, and only then.
    @Test func headSplitAnywhereIsAnsweredOnceWhole() throws {
        let text = Self.head("/hit-split") + Self.head("/hit-next")
        let first = Self.head("/hit-split").utf8.count
        for cut in 1..<first {
            let harness = try Harness()
            let bytes = Array(text.utf8)
            try harness.read(String(decoding: bytes[..<cut], as: UTF8.self))
            #expect(try EmbeddedProbes.written(harness.channel).isEmpty, "cut at \(cut)")
            try harness.read(String(decoding: bytes[cut...], as: UTF8.self))
            #expect(try EmbeddedProbes.written(harness.channel) == ["GET /hit-split;", "body;", "GET /hit-next;", "body;"], "cut at \(cut)")
            #expect(harness.tail.parts.isEmpty, "cut at \(cut)")
        }
    }

    @Test func headSentAByteAtATimeIsAnswered() throws {
        let harness = try Harness()
        for byte in Self.head("/hit-bytes").utf8 {
            #expect(try EmbeddedProbes.written(harness.channel).isEmpty)
            try harness.read(String(decoding: [byte], as: UTF8.self))
        }
        #expect(try EmbeddedProbes.written(harness.channel) == ["GET /hit-bytes;", "body;"])
    }

    /// The first request not answered here, and every byte after it, go to the decoder in
    /// the read they came in, and later reads follow them there.
    @Test func aMissHandsItselfAndEverythingAfterItToTheDecoder() throws {
        let harness = try Harness()
        try harness.read(Self.head("/hit1") + Self.head("/hit2"))
        #expect(harness.installs.count == 0)
        try harness.read(Self.head("/hit1") + Self.head("/miss") + Self.head("/hit2"))
        #expect(harness.installs.count == 1)
        #expect(try EmbeddedProbes.written(harness.channel) == ["GET /hit1;", "body;", "GET /hit2;", "body;", "GET /hit1;", "body;"])
        #expect(harness.handedOn == Self.head("/miss") + Self.head("/hit2"))
        #expect(harness.tail.readCompletes == 1)
        try harness.read(Self.head("/hit3"))
        #expect(try EmbeddedProbes.written(harness.channel).isEmpty)
        #expect(harness.handedOn == Self.head("/miss") + Self.head("/hit2") + Self.head("/hit3"))
        #expect(harness.tail.readCompletes == 2)
        #expect(harness.installs.count == 1)
    }

    /// Before its first miss a connection keeps its idle timeout here: hits answered count as
    /// activity, and it closes `idleTimeout` after the last one.
    @Test func idleTimeoutCountsHitsAnsweredHere() throws {
        let harness = try Harness(idleTimeout: .seconds(10))
        for index in 0..<5 {
            harness.channel.embeddedEventLoop.advanceTime(by: .seconds(6))
            try harness.read(Self.head("/hit\(index)"))
        }
        harness.channel.embeddedEventLoop.advanceTime(by: .seconds(10) - .nanoseconds(1))
        #expect(harness.channel.isActive)
        harness.channel.embeddedEventLoop.advanceTime(by: .nanoseconds(1))
        #expect(!harness.channel.isActive)
    }

    /// The raw handler drives the connection's client clocks (no handler of their own sits
    /// before it): a head that stalls is cut at the header timeout, counted from its first
    /// byte, and a hit answered here re-arms the clock for the next head.
    @Test func headerTimeoutRunsFromTheRawBytes() throws {
        let harness = try Harness(headerTimeout: .seconds(10))
        try harness.read(Self.head("/hit1"))
        harness.channel.embeddedEventLoop.advanceTime(by: .seconds(60))
        #expect(harness.channel.isActive)
        try harness.read("GET /hit2 HTTP/1.1\r\n")
        harness.channel.embeddedEventLoop.advanceTime(by: .seconds(5))
        try harness.read("Host: a\r\n")
        harness.channel.embeddedEventLoop.advanceTime(by: .seconds(5) - .nanoseconds(1))
        #expect(harness.channel.isActive)
        harness.channel.embeddedEventLoop.advanceTime(by: .nanoseconds(1))
        #expect(!harness.channel.isActive)
    }

    /// A pipelined head split across reads, after a hit answered from the first read, runs
    /// the head clock from the read that started it until it is whole, and not afterwards:
    /// its last piece (a bare line end) ends it, and the idle connection then stays open
    /// past the header timeout.
    @Test func pipelinedHeadSplitAfterAHitStopsTheClockWhenWhole() throws {
        let harness = try Harness(headerTimeout: .seconds(10))
        try harness.read(Self.head("/hit1") + "GET /hit2 HTTP/1.1\r\nHost: a\r\n")
        harness.channel.embeddedEventLoop.advanceTime(by: .seconds(5))
        try harness.read("\r\n")
        #expect(try EmbeddedProbes.written(harness.channel) == ["GET /hit1;", "body;", "GET /hit2;", "body;"])
        harness.channel.embeddedEventLoop.advanceTime(by: .seconds(60))
        #expect(harness.channel.isActive)
        // And the held piece did start the clock: a head that stays split is cut.
        try harness.read(Self.head("/hit3") + "GET /hit4 HTTP/1.1\r\n")
        harness.channel.embeddedEventLoop.advanceTime(by: .seconds(10))
        #expect(!harness.channel.isActive)
    }

    /// After a miss, the decoder's side writes its responses through the raw handler, which
    /// re-arms the head clock for the next head as well.
    @Test func headerTimeoutCoversHeadsAfterTheDecoderIsInstalled() throws {
        let harness = try Harness(headerTimeout: .seconds(10))
        try harness.read(Self.head("/miss"))
        try harness.channel.writeOutbound(ByteBuffer(string: "HTTP/1.1 200 OK\r\n\r\n"))
        harness.channel.embeddedEventLoop.advanceTime(by: .seconds(60))
        #expect(harness.channel.isActive)
        try harness.read("GET /next HTTP/1.1\r\n")
        harness.channel.embeddedEventLoop.advanceTime(by: .seconds(10))
        #expect(!harness.channel.isActive)
    }

    /// A client that stops reading what it is sent is cut at the send timeout, counted here too.
    @Test func sendTimeoutRunsWhileAnswersWait() throws {
        let harness = try Harness(highWatermark: 2, sendTimeout: .seconds(60))
        try harness.read(Self.head("/hit1") + Self.head("/hit2"))
        #expect(!harness.channel.isWritable)
        harness.channel.pipeline.fireChannelWritabilityChanged()
        harness.channel.embeddedEventLoop.advanceTime(by: .seconds(60) - .nanoseconds(1))
        #expect(harness.channel.isActive)
        harness.channel.embeddedEventLoop.advanceTime(by: .nanoseconds(1))
        #expect(!harness.channel.isActive)
    }

    /// Graceful shutdown closes a connection that never went to the decoder (it has no
    /// request in progress), and leaves one that did to HummingbirdCore's state handler.
    @Test func gracefulShutdownClosesAConnectionServedHereAlone() throws {
        let alone = try Harness()
        try alone.read(Self.head("/hit"))
        alone.channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        #expect(!alone.channel.isActive)
        let decoded = try Harness()
        try decoded.read(Self.head("/miss"))
        decoded.channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        #expect(decoded.channel.isActive)
    }

    /// A head this handler does not read strictly (here, lines ending in a bare LF) goes to
    /// the decoder as soon as that shows, also when it shows in a later piece.
    @Test func lenientHeadGoesToTheDecoderAsSoonAsItShows() throws {
        let harness = try Harness()
        try harness.read("GET /hit HTTP/1.1\r\nHost: a")
        #expect(harness.tail.parts.isEmpty)
        try harness.read("\nAccept: */*\n")
        #expect(harness.handedOn == "GET /hit HTTP/1.1\r\nHost: a\nAccept: */*\n")
        #expect(try EmbeddedProbes.written(harness.channel).isEmpty)
    }

    /// A head longer than the handler reads goes to the decoder once it passes that length.
    @Test func headLongerThanTheLimitGoesToTheDecoder() throws {
        let harness = try Harness()
        let start = "GET /hit HTTP/1.1\r\nHost: a\r\nX-Long: "
        try harness.read(start)
        let filler = String(repeating: "x", count: 1024)
        var sent = start
        while harness.tail.parts.isEmpty, sent.utf8.count <= PlainRequestHead.maximumLength + 1024 {
            try harness.read(filler)
            sent += filler
        }
        #expect(sent.utf8.count > PlainRequestHead.maximumLength)
        #expect(harness.handedOn == sent)
    }

    /// A client that pipelines requests and never reads gets answers only up to the write
    /// buffer's high watermark; no more bytes are read from its socket meanwhile; each time it
    /// reads, the next answers go out; and once every held request is answered, reading resumes.
    @Test func answersWaitForAClientThatDoesNotRead() throws {
        let harness = try Harness(highWatermark: 10)
        let requests = 1_000
        try harness.read((0..<requests).map { Self.head("/hit\($0)") }.joined())
        var answered = 0
        var rounds = 0
        while answered < requests {
            let written = try EmbeddedProbes.written(harness.channel)
            #expect(written.count == min(10, 2 * (requests - answered)), "round \(rounds)")
            answered += written.count / 2
            if answered < requests {
                let reads = harness.socket.reads
                harness.channel.read()
                #expect(harness.socket.reads == reads, "a read was passed on while answers wait")
            }
            rounds += 1
            harness.socket.drain(harness.channel)
        }
        #expect(answered == requests)
        #expect(rounds == requests / 5)
        // The read asked for while waiting goes to the socket once nothing is held.
        #expect(harness.socket.reads > 0)
        #expect(harness.tail.parts.isEmpty)
    }

    /// Requests held while the client does not read keep their place: a miss among them goes
    /// to the decoder only after the hits before it were answered.
    @Test func heldMissGoesOnAfterTheHitsBeforeIt() throws {
        let harness = try Harness(highWatermark: 2)
        try harness.read(Self.head("/hit1") + Self.head("/hit2") + Self.head("/miss") + Self.head("/hit3"))
        #expect(try EmbeddedProbes.written(harness.channel) == ["GET /hit1;", "body;"])
        #expect(harness.tail.parts.isEmpty)
        harness.socket.drain(harness.channel)
        #expect(try EmbeddedProbes.written(harness.channel) == ["GET /hit2;", "body;"])
        harness.socket.drain(harness.channel)
        #expect(harness.handedOn == Self.head("/miss") + Self.head("/hit3"))
        #expect(harness.tail.readCompletes == 1)
    }

    /// The input closing with a head not yet whole hands that head to the decoder.
    @Test func inputClosingHandsAPartialHeadToTheDecoder() throws {
        let harness = try Harness()
        try harness.read("GET /hit HTTP/1.1\r\nHo")
        harness.channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        #expect(harness.handedOn == "GET /hit HTTP/1.1\r\nHo")
        #expect(harness.installs.count == 1)
    }
}
