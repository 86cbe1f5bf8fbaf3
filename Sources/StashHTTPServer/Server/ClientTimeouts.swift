import NIOCore

/// Closes a client connection that is too slow on either side of an exchange: one whose
/// request head does not arrive whole within a time limit counted from the head's first
/// byte (slow clients holding connections open, "slowloris"), and one that stops reading
/// what it is sent, so that its connection stays unwritable (more than NIO's write buffer
/// high watermark waiting) for longer than the send limit (nginx's `send_timeout`).
///
/// The send limit is what frees whatever a stuck response holds: the upstream connection of
/// a streamed miss, its incoming file, and the requests collapsed behind it. It is
/// measured between two moments when the client drained enough to make the connection
/// writable again, so a slow but steady reader is never cut.
///
/// It sees the raw bytes, because the HTTP decoder only reports a head once it is complete:
/// it sits first in the pipeline, or is driven by ``RawHitHandler``, which does. It starts
/// the head clock on the first byte received while a head is awaited, stops it at the empty
/// line that ends the head (``RequestHeadEnd``), and awaits the next head once a response is
/// being written. Event-loop confined, like every channel handler.
final class ClientTimeouts: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer

    private let headerTimeout: TimeAmount
    private let sendTimeout: TimeAmount
    private var awaitingHead = true
    private var headEnd = RequestHeadEnd()
    private var headClock: Scheduled<Void>?
    private var sendClock: Scheduled<Void>?

    init(headerTimeout: TimeAmount, sendTimeout: TimeAmount) {
        self.headerTimeout = headerTimeout
        self.sendTimeout = sendTimeout
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        noteRead(unwrapInboundIn(data).readableBytesView, context: context)
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        noteResponse()
        context.write(data, promise: promise)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        noteWritability(context: context)
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        stopClocks()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) { stopClocks() }

    // MARK: Driven by the handler that sees the raw bytes

    // ``RawHitHandler``, first in the pipeline of a connection whose hits are answered on
    // the event loop, drives the clocks through these, so that a hit's read and write do
    // not pass through one more handler; elsewhere this handler's own events do.

    /// `bytes` arrived from the client: starts the head clock at the first byte of a head,
    /// stops it at the head's end.
    func noteRead(_ bytes: ByteBufferView, context: ChannelHandlerContext) {
        guard awaitingHead else { return }
        if headEnd.holdsEnd(in: bytes) {
            // A head that arrives whole in one read (the usual case) never starts the clock.
            awaitingHead = false
            stop(&headClock)
        } else if headClock == nil, !bytes.isEmpty {
            headClock = context.eventLoop.assumeIsolated().scheduleTask(in: headerTimeout) { [context] in
                context.close(promise: nil)
            }
        }
    }

    /// A head not yet whole is held after the answers made from the same read: when those
    /// answers restarted the clock's wait for a head, its bytes (which arrived before them, so
    /// were looked at only up to the end of the head answered) start the head clock now.
    /// Without this, a pipelined head split across reads was never seen to start, its last
    /// piece looked like empty lines, and the clock ran on after it was answered, closing an
    /// idle keep-alive connection at the header timeout.
    func noteHeadHeld(_ bytes: ByteBufferView, context: ChannelHandlerContext) {
        guard awaitingHead, headClock == nil else { return }
        noteRead(bytes, context: context)
    }

    /// A response is being written: the next bytes start the next head, and a head clock
    /// already running stops.
    ///
    /// A head clock runs while a response is written only for a head whose start the scanner
    /// missed: one pipelined into the read that ended the head before it, on a connection
    /// already handed to the decoder (the scanner stops at the first head's end). Its last
    /// piece can look like empty lines before a head, so its end is never seen; the response
    /// to it (or to the head before it) is the sign it was whole. A client still sending a
    /// head after a response meets the clock again with its next byte.
    func noteResponse() {
        if awaitingHead {
            stop(&headClock)
        } else {
            awaitingHead = true
            headEnd = RequestHeadEnd()
        }
    }

    /// Starts the send clock when the channel becomes unwritable, stops it when it drains.
    func noteWritability(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            stop(&sendClock)
        } else if sendClock == nil {
            sendClock = context.eventLoop.assumeIsolated().scheduleTask(in: sendTimeout) { [context] in
                context.close(promise: nil)
            }
        }
    }

    /// Stops both clocks (the connection is closing).
    func stopClocks() {
        stop(&headClock)
        stop(&sendClock)
    }

    private func stop(_ clock: inout Scheduled<Void>?) {
        clock?.cancel()
        clock = nil
    }
}
