import HTTPTypes
import NIOCore
import StashHTTPWire

/// Answers fresh cache hits from a connection's raw bytes, before NIO's HTTP/1 decoder, as
/// long as the connection has sent nothing else: each plain `GET` or `HEAD` head
/// (``PlainRequestHead``) that is a fresh hit is answered with the stored response's
/// prepared head bytes and body (one `writev` for all the answers of a read, nothing
/// allocated per request but its path and authority: its fields stay in the read buffer and
/// only those the lookup needs are read) and never reaches the decoder.
///
/// A connection starts with this handler alone: no HTTP decoder, no HummingbirdCore handler,
/// so a hit costs no trip through them. It drives the connection's ``ClientTimeouts`` itself
/// (the clocks see every byte read and every response written here), so that no other
/// handler stands between the socket and the hit either.
/// The first request it does not answer (a miss, a request with a body, a head it does not
/// read strictly) has the decoder and the rest of HummingbirdCore's HTTP/1 pipeline
/// installed behind it (``ProxyChildChannel``); that request and every byte after it go
/// there, and the connection stays with the decoder and the full flow: the decoder then has
/// seen every request from its start, and NIO's response encoder, which pairs each response
/// with its request's method, every response.
///
/// Until then it keeps the connection's ``IdleTimeout`` and answers graceful shutdown
/// (closing the connection, which has no request in progress: every request it took was
/// answered at once).
///
/// A head split across reads is held here until it is whole (at most
/// ``PlainRequestHead/maximumLength`` bytes, under the server's header timeout); its end is looked for in each new piece only (``RequestHeadEnd``),
/// so a head sent a byte at a time costs its length, not its length squared.
///
/// It answers only while the client takes what it is sent: once the channel is not
/// writable (more than NIO's write buffer high watermark waiting), the requests not yet
/// answered are held, no more bytes are read from the socket, and answering goes on when
/// the channel is writable again. A client that pipelines requests and never reads costs
/// one read buffer, not a write queue without end.
/// Event-loop confined, like every channel handler.
final class RawHitHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// A hit's response: its head's bytes and, for a `GET`, its body.
    typealias Answer = (head: ByteBuffer, body: ByteBuffer?)

    private let answer: (PlainRequestHead.Request) -> Answer?
    private let timeouts: ClientTimeouts
    private let idle: IdleTimeout?
    /// Puts the decoder and the handlers behind it after this handler.
    private let installDecoder: (ChannelHandlerContext) throws -> Void
    /// Whether the connection has gone to the decoder for good.
    private var passing = false
    /// Bytes read and neither answered nor handed on: the start of a head not yet whole, or
    /// requests held while the channel is not writable.
    private var held: ByteBuffer?
    /// For a head found not whole in `held`: where its end is looked for, and how many of
    /// the held bytes were looked at.
    private var split: (end: RequestHeadEnd, scanned: Int)?
    /// Whether answering waits for the channel to be writable again.
    private var waitingForWritable = false
    /// Whether a read from the socket was asked for while waiting.
    private var readAsked = false
    /// Whether something was written since the last flush.
    private var unflushed = false
    /// Whether bytes went on to the decoder since the last read completed.
    private var handedOn = false

    init(
        timeouts: ClientTimeouts, idle: IdleTimeout?, answer: @escaping (PlainRequestHead.Request) -> Answer?,
        installDecoder: @escaping (ChannelHandlerContext) throws -> Void
    ) {
        self.timeouts = timeouts
        self.idle = idle
        self.answer = answer
        self.installDecoder = installDecoder
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { idle?.start(on: context.channel) }
    }

    func channelActive(context: ChannelHandlerContext) {
        idle?.start(on: context.channel)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        stopClocks()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) { stopClocks() }

    private func stopClocks() {
        idle?.stop()
        timeouts.stopClocks()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        timeouts.noteRead(unwrapInboundIn(data).readableBytesView, context: context)
        if passing {
            handedOn = true
            context.fireChannelRead(data)
            return
        }
        var buffer = unwrapInboundIn(data)
        if var before = held {
            held = nil
            before.writeImmutableBuffer(buffer)
            buffer = before
        }
        idle?.noteActivity()
        if waitingForWritable {
            held = buffer
        } else {
            serve(buffer, context: context)
        }
    }

    /// Answers the requests at the start of `buffer` while they are fresh hits and the
    /// channel takes them; holds what must wait, hands on the rest. Each head is read once.
    private func serve(_ bytes: ByteBuffer, context: ChannelHandlerContext) {
        var buffer = bytes
        while buffer.readableBytes > 0 {
            guard context.channel.isWritable else {
                held = buffer
                waitingForWritable = true
                // What is waiting can only drain once it is flushed.
                flushIfNeeded(context)
                return
            }
            guard !stillArriving(buffer) else {
                held = buffer
                return
            }
            let reading = PlainRequestHead.read(buffer)
            let wasSplit = split != nil
            split = nil
            switch reading {
            case .request(let request, let length):
                if let (head, body) = answer(request) {
                    context.write(wrapOutboundOut(head), promise: nil)
                    if let body { context.write(wrapOutboundOut(body), promise: nil) }
                    timeouts.noteResponse()
                    unflushed = true
                    buffer.moveReaderIndex(forwardBy: length)
                    continue
                }
            case .incomplete where !wasSplit:
                // From now on only the bytes that arrive are looked at, for the head's end.
                split = (RequestHeadEnd(), 0)
                held = buffer
                timeouts.noteHeadHeld(buffer.readableBytesView, context: context)
                return
            case .incomplete, .other:
                // An incomplete head whose end was found cannot be read strictly either.
                break
            }
            handOn(buffer, context: context)
            return
        }
    }

    /// Installs the decoder and hands `bytes` (if any), and every byte after them, to it.
    private func handOn(_ bytes: ByteBuffer?, context: ChannelHandlerContext) {
        passing = true
        waitingForWritable = false
        // HummingbirdCore's idle timeout, installed with the decoder, runs from now on.
        idle?.stop()
        do {
            try installDecoder(context)
        } catch {
            context.fireErrorCaught(error)
            context.close(promise: nil)
            return
        }
        if let bytes {
            handedOn = true
            context.fireChannelRead(wrapInboundOut(bytes))
        }
    }

    /// Whether `buffer` starts with a head, found not whole at an earlier read, that is still
    /// arriving and may still qualify: its end is looked for only in the bytes not looked at
    /// before, and it stops qualifying once a line ends in a bare LF or it grows past
    /// ``PlainRequestHead/maximumLength`` (then it is read, and goes to the decoder).
    private func stillArriving(_ buffer: ByteBuffer) -> Bool {
        guard var (end, scanned) = split else { return false }
        let found = end.find(in: buffer.readableBytesView.dropFirst(scanned)) != nil
        scanned = buffer.readableBytes
        split = (end, scanned)
        return !found && end.isStrict && scanned <= PlainRequestHead.maximumLength
    }

    /// Flushes the answers of the read, and tells the handlers behind only of reads that
    /// reached them (a read answered here whole is no event of theirs: this saves each hit
    /// a trip through the pipeline).
    func channelReadComplete(context: ChannelHandlerContext) {
        flushIfNeeded(context)
        if handedOn {
            handedOn = false
            context.fireChannelReadComplete()
        }
    }

    /// A response from the handlers behind (the decoder's side) is being written.
    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        timeouts.noteResponse()
        context.write(data, promise: promise)
    }

    /// Reads from the socket only while answers are not waiting for the channel to be
    /// writable.
    func read(context: ChannelHandlerContext) {
        if waitingForWritable, !passing {
            readAsked = true
        } else {
            context.read()
        }
    }

    /// Goes on answering the held requests once the channel is writable again.
    func channelWritabilityChanged(context: ChannelHandlerContext) {
        timeouts.noteWritability(context: context)
        if waitingForWritable, context.channel.isWritable {
            waitingForWritable = false
            if let buffer = held {
                held = nil
                serve(buffer, context: context)
            }
            flushIfNeeded(context)
            if handedOn {
                handedOn = false
                context.fireChannelReadComplete()
            }
            if !waitingForWritable, readAsked {
                readAsked = false
                context.read()
            }
        }
        context.fireChannelWritabilityChanged()
    }

    /// The input closing goes to the decoder, installed for it, with the bytes still held,
    /// which it answers, or reports as a head not yet whole, as it does.
    ///
    /// Graceful shutdown closes a connection that never went to the decoder: it has no
    /// request in progress (HummingbirdCore's state handler, not yet installed, would close
    /// it the same way).
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if !passing, event is ChannelShouldQuiesceEvent {
            context.close(promise: nil)
            return
        }
        if !passing, case .some(ChannelEvent.inputClosed) = event as? ChannelEvent {
            // HummingbirdCore ends the connection as it does for any client that half-closes.
            let bytes = held
            held = nil
            split = nil
            handOn(bytes, context: context)
            if handedOn {
                handedOn = false
                context.fireChannelReadComplete()
            }
        }
        context.fireUserInboundEventTriggered(event)
    }

    private func flushIfNeeded(_ context: ChannelHandlerContext) {
        if unflushed {
            unflushed = false
            context.flush()
        }
    }
}
