import HTTPTypes
import NIOCore

/// Answers fresh cache hits from a connection's raw bytes, before NIO's HTTP/1 decoder, as
/// long as the connection has sent nothing else: each plain `GET` or `HEAD` head
/// (``PlainRequestHead``) that is a fresh hit is answered with the stored response's
/// prepared head bytes and body (one `writev` for all the answers of a read, nothing
/// allocated per request but the request itself) and never reaches the decoder.
///
/// The first request it does not answer (a miss, a request with a body, a head it does not
/// read strictly), and every byte after it, go to the decoder, and from then on the
/// connection stays with the decoder (where ``FreshHitHandler`` still answers hits): the
/// decoder then has seen every request from its start, and NIO's response encoder, which
/// pairs each response with its request's method, every response. A head split across
/// reads is held here until it is whole (at most ``PlainRequestHead/maximumLength`` bytes,
/// under the server's header timeout, which sits before this handler).
/// Event-loop confined, like every channel handler.
final class RawHitHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// A hit's response: its head's bytes and, for a `GET`, its body.
    typealias Answer = (head: ByteBuffer, body: ByteBuffer?)

    private let answer: (HTTPRequest) -> Answer?
    /// The handler after the decoder, whose idle timeout counts the requests answered here.
    private let decoded: FreshHitHandler
    /// Whether the connection has gone to the decoder for good.
    private var passing = false
    /// The start of a head not yet whole.
    private var partial: ByteBuffer?
    /// Whether something was written since the last flush.
    private var unflushed = false
    /// Whether bytes went on to the decoder since the last read completed.
    private var handedOn = false

    init(decoded: FreshHitHandler, answer: @escaping (HTTPRequest) -> Answer?) {
        self.decoded = decoded
        self.answer = answer
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if passing {
            handedOn = true
            context.fireChannelRead(data)
            return
        }
        var buffer = unwrapInboundIn(data)
        if var held = partial {
            partial = nil
            held.writeImmutableBuffer(buffer)
            buffer = held
        }
        decoded.noteActivity()
        while buffer.readableBytes > 0 {
            let reading = buffer.withUnsafeReadableBytes { PlainRequestHead.read($0) }
            switch reading {
            case .incomplete:
                partial = buffer
                return
            case .request(let request, let length):
                if let (head, body) = answer(request) {
                    context.write(wrapOutboundOut(head), promise: nil)
                    if let body { context.write(wrapOutboundOut(body), promise: nil) }
                    unflushed = true
                    buffer.moveReaderIndex(forwardBy: length)
                    continue
                }
            case .other:
                break
            }
            passing = true
            handedOn = true
            context.fireChannelRead(wrapInboundOut(buffer))
            return
        }
    }

    /// Flushes the answers of the read, and tells the handlers behind only of reads that
    /// reached them (a read answered here whole is no event of theirs: this saves each hit
    /// a trip through the pipeline).
    func channelReadComplete(context: ChannelHandlerContext) {
        if unflushed {
            unflushed = false
            context.flush()
        }
        if handedOn {
            handedOn = false
            context.fireChannelReadComplete()
        }
    }

    /// The input closing with a head not yet whole hands that head to the decoder, which
    /// reports it as the decoder does.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let held = partial, case .some(ChannelEvent.inputClosed) = event as? ChannelEvent {
            partial = nil
            passing = true
            context.fireChannelRead(wrapInboundOut(held))
            context.fireChannelReadComplete()
        }
        context.fireUserInboundEventTriggered(event)
    }
}
