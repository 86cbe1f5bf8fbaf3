import HTTPTypes
import NIOCore
import NIOHTTP1

/// Answers fresh cache hits on the connection's event loop, synchronously, straight from
/// NIO's HTTP/1 decoder, and passes every other request on, unchanged, to HummingbirdCore's
/// HTTPTypes conversion and asynchronous responder.
///
/// It sits between NIO's request decoder and HummingbirdCore's `HTTP1ToHTTPServerCodec`, so
/// a hit costs neither the request's conversion to HTTPTypes (`URLComponents` and a copy of
/// every field) nor the hops through the handlers behind it. A hit's head and body go to
/// NIO's response encoder, the next handler out, which must see every response (it pairs
/// each with its request's method), and are flushed together once the read is processed: one `writev` for all the
/// answers of a read.
///
/// It tells the connection's ``ClientTimeouts`` of every head as the decoder reports it,
/// which is what stops the header clock for a head whose end the byte scanner missed.
///
/// Because hits never reach HummingbirdCore's `HTTPConnectionStateHandler`, this handler
/// keeps the connection's ``IdleTimeout`` (the server gives HummingbirdCore none): every
/// request part is activity, and a forwarded request is being answered from its end until
/// its response ends. Graceful shutdown stays HummingbirdCore's: the state handler counts
/// the forwarded requests, and a hit is whole once answered.
///
/// Responses keep the order of requests: a request is answered here only when every
/// request handed on has had its response end written, so a pipelined hit behind a miss
/// waits its turn in the responder. The rest of a request answered here (a body, its end) is
/// dropped.
///
/// Like ``RawHitHandler``, it answers only while the client takes what it is sent: a
/// request that it might answer arriving while the channel is not writable is held, with
/// every part after it, no more bytes are read from the socket, and the held parts are
/// taken in order once the channel is writable again. Event-loop confined, like every
/// channel handler.
final class FreshHitHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// A hit's response: its head and, for a `GET`, its body.
    typealias Answer = (head: HTTPResponseHead, body: ByteBuffer?)

    private let answer: (HTTPRequestHead) -> Answer?
    private let idle: IdleTimeout?
    /// Told of every head as the decoder reports it (``ClientTimeouts/noteHeadDecoded()``).
    private let timeouts: ClientTimeouts?
    /// Requests handed on whose response end has not been written yet.
    private var forwarded = 0
    /// Whether the parts of a request answered here are still arriving (they are dropped).
    private var dropping = false
    /// Whether the parts of a request handed on are still arriving.
    private var reading = false
    /// Whether something was written since the last flush.
    private var unflushed = false
    /// Parts held, in order, while the channel was not writable.
    private var held = CircularBuffer<HTTPServerRequestPart>()
    /// Whether a read from the socket was asked for while parts were held.
    private var readAsked = false

    init(timeouts: ClientTimeouts?, idle: IdleTimeout?, answer: @escaping (HTTPRequestHead) -> Answer?) {
        self.timeouts = timeouts
        self.idle = idle
        self.answer = answer
    }

    func handlerAdded(context: ChannelHandlerContext) {
        idle?.isAnswering = { [weak self] in
            guard let self else { return false }
            return forwarded > 0 && !reading
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        idle?.noteActivity()
        let part = unwrapInboundIn(data)
        if case .head = part { timeouts?.noteHeadDecoded() }
        if !held.isEmpty || !context.channel.isWritable && isAnswerable(part) {
            held.append(part)
            flushIfNeeded(context)
            return
        }
        take(part, context: context)
    }

    /// Whether `part` is a head this handler might answer at once.
    private func isAnswerable(_ part: HTTPServerRequestPart) -> Bool {
        if case .head = part { return forwarded == 0 }
        return false
    }

    /// Answers `part` when it is a fresh hit, drops it when it belongs to one, or hands it on.
    private func take(_ part: HTTPServerRequestPart, context: ChannelHandlerContext) {
        switch part {
        case .head(let request):
            if forwarded == 0, let (head, body) = answer(request) {
                dropping = true
                context.write(wrapOutboundOut(.head(head)), promise: nil)
                if let body { context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil) }
                context.write(wrapOutboundOut(.end(nil)), promise: nil)
                unflushed = true
                return
            }
            dropping = false
            reading = true
            forwarded += 1
        case .body:
            if dropping { return }
        case .end:
            if dropping {
                dropping = false
                return
            }
            reading = false
        }
        context.fireChannelRead(wrapInboundOut(part))
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        flushIfNeeded(context)
        context.fireChannelReadComplete()
    }

    /// Reads from the socket only while no part is held.
    func read(context: ChannelHandlerContext) {
        if held.isEmpty {
            context.read()
        } else {
            readAsked = true
        }
    }

    /// Takes the held parts in order once the channel is writable again, up to the next
    /// head it might answer while the channel is not.
    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if !held.isEmpty, context.channel.isWritable {
            while let part = held.first, context.channel.isWritable || !isAnswerable(part) {
                held.removeFirst()
                take(part, context: context)
            }
            flushIfNeeded(context)
            context.fireChannelReadComplete()
            if held.isEmpty, readAsked {
                readAsked = false
                context.read()
            }
        }
        context.fireChannelWritabilityChanged()
    }

    private func flushIfNeeded(_ context: ChannelHandlerContext) {
        if unflushed {
            unflushed = false
            context.flush()
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), forwarded > 0 {
            forwarded -= 1
            if forwarded == 0 { idle?.responseEnded() }
        }
        context.write(data, promise: promise)
    }
}
