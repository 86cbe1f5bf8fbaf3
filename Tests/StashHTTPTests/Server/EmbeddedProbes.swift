import NIOCore
import NIOEmbedded

/// Test handlers that watch one pipeline on an `EmbeddedChannel`, so the proxy's channel
/// handlers are checked event by event, with the embedded loop's own clock.
enum EmbeddedProbes {
    /// First in the pipeline: counts the reads asked of the socket and, like NIO's socket
    /// channels, makes the channel unwritable once `highWatermark` writes are waiting
    /// (`drain()` is the client reading them).
    final class Socket: ChannelOutboundHandler {
        typealias OutboundIn = Any

        let highWatermark: Int
        private(set) var reads = 0
        private(set) var waiting = 0

        init(highWatermark: Int = .max) { self.highWatermark = highWatermark }

        func read(context: ChannelHandlerContext) {
            reads += 1
            context.read()
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            waiting += 1
            if waiting >= highWatermark, let channel = context.channel as? EmbeddedChannel { channel.isWritable = false }
            context.write(data, promise: promise)
        }

        /// The client takes everything written: the channel is writable again and says so.
        func drain(_ channel: EmbeddedChannel) {
            waiting = 0
            channel.isWritable = true
            channel.pipeline.fireChannelWritabilityChanged()
        }
    }

    /// Last in the pipeline: what reached the handlers behind the one under test.
    final class Tail<Part>: ChannelInboundHandler {
        typealias InboundIn = Part

        private(set) var parts: [Part] = []
        private(set) var readCompletes = 0

        func channelRead(context: ChannelHandlerContext, data: NIOAny) { parts.append(unwrapInboundIn(data)) }
        func channelReadComplete(context: ChannelHandlerContext) { readCompletes += 1 }
    }

    /// Every `ByteBuffer` written to `channel` and flushed so far, as text.
    static func written(_ channel: EmbeddedChannel) throws -> [String] {
        var texts: [String] = []
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) { texts.append(String(buffer: buffer)) }
        return texts
    }

    /// Makes `channel` active, as an accepted connection is.
    static func connect(_ channel: EmbeddedChannel) throws {
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()
    }
}
