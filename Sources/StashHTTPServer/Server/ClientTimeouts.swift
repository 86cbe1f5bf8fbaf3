import NIOCore
import StashHTTPWire

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
/// line that ends the head (``RequestHeadEnd``) or when the decoder reports the head
/// (``noteHeadDecoded()``), and awaits the next head once a response is being written and
/// the request has ended (``noteRequestEnd()``: bytes after an early answer are still the
/// body). Event-loop confined, like every channel handler.
final class ClientTimeouts: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer

    private let headerTimeout: TimeAmount
    private let sendTimeout: TimeAmount
    private var awaitingHead = true
    /// Whether the decoder reported a head whose request has not ended yet: what arrives is
    /// its body, not the next head, even once its response is being written (an early answer).
    private var requestArriving = false
    /// Whether a response was written while ``requestArriving``: the next head is awaited once
    /// the request ends.
    private var answeredEarly = false
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

    /// A response is being written: the next bytes start the next head (once the request
    /// has ended, when its body is still arriving).
    func noteResponse() {
        if requestArriving {
            answeredEarly = true
            return
        }
        if !awaitingHead {
            awaitingHead = true
            headEnd = RequestHeadEnd()
        }
    }

    /// NIO's decoder reported a whole head (``RequestGate``, right behind it, says so):
    /// its clock stops, and the bytes read until the next response are not looked at for a
    /// head (they are its body, or heads pipelined behind it, which the scanner does not see
    /// start either).
    ///
    /// On a connection handed to the decoder, this is what ends the clock of a head the
    /// scanner did not see end: one pipelined into the read that ended the head before it
    /// (the scanner stops at the first end) and whose last piece is a bare line end, which
    /// looks like the empty lines allowed before a head. Only a decoded head stops the clock,
    /// never a response: a response's writes say nothing of a head still arriving.
    func noteHeadDecoded() {
        awaitingHead = false
        requestArriving = true
        stop(&headClock)
    }

    /// NIO's decoder reported the end of a request (its body read whole): after an answer
    /// written while it was still arriving, the next bytes start the next head.
    func noteRequestEnd() {
        requestArriving = false
        if answeredEarly {
            answeredEarly = false
            noteResponse()
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
