import HTTPTypes
import HummingbirdCore
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Answers fresh cache hits on the connection's event loop, synchronously, and passes every
/// other request on to HummingbirdCore's asynchronous responder unchanged.
///
/// It sits right after HummingbirdCore's `HTTPConnectionStateHandler`, so that handler still
/// sees every request and every response end (the idle timeout, and graceful shutdown
/// closing a connection once its last response is written, stay whole). A hit's head and
/// body go straight to NIO's HTTP/1 response encoder (written through the request decoder's
/// context, the handler next to it), skipping the HTTPTypes-to-NIOHTTP1 conversion; its end
/// goes through this handler's own context, past the state handler.
///
/// Responses keep the order of requests: a request is answered here only when every
/// request handed to the asynchronous responder has had its response end written, so a
/// pipelined hit behind a miss waits its turn in the responder. The rest of a request
/// answered here (its end) is dropped. Event-loop confined, like every channel handler.
final class FreshHitHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let answer: (HTTPRequest) -> (head: HTTPResponseHead, body: ByteBuffer?)?
    /// The context whose writes reach NIO's response encoder directly.
    private let encoder: ChannelHandlerContext
    /// Requests handed to the responder whose response end has not been written yet.
    private var forwarded = 0
    /// Whether the parts of a request answered here are still arriving (they are dropped).
    private var dropping = false
    /// Whether something was written since the last flush.
    private var unflushed = false

    init(encoder: ChannelHandlerContext, answer: @escaping (HTTPRequest) -> (head: HTTPResponseHead, body: ByteBuffer?)?) {
        self.encoder = encoder
        self.answer = answer
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            if forwarded == 0, let (head, body) = answer(request) {
                dropping = true
                encoder.write(NIOAny(HTTPServerResponsePart.head(head)), promise: nil)
                if let body { encoder.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(body))), promise: nil) }
                context.write(wrapOutboundOut(.end(nil)), promise: nil)
                unflushed = true
                return
            }
            dropping = false
            forwarded += 1
        case .body:
            if dropping { return }
        case .end:
            if dropping {
                dropping = false
                return
            }
        }
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if unflushed {
            unflushed = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), forwarded > 0 { forwarded -= 1 }
        context.write(data, promise: promise)
    }
}

extension FreshHitHandler {
    /// Puts a ``FreshHitHandler`` after HummingbirdCore's `HTTPConnectionStateHandler` when
    /// the connection's first request part arrives (HummingbirdCore adds its extra handlers
    /// before that one, and the state handler is in place by the first read), then steps
    /// out of the pipeline. Passes every event through untouched.
    final class Installer: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPRequestPart

        private let answer: @Sendable (HTTPRequest) -> (head: HTTPResponseHead, body: ByteBuffer?)?
        private var installed = false

        init(answer: @escaping @Sendable (HTTPRequest) -> (head: HTTPResponseHead, body: ByteBuffer?)?) {
            self.answer = answer
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            if !installed {
                installed = true
                let pipeline = context.pipeline.syncOperations
                if let state = try? pipeline.handler(type: HTTPConnectionStateHandler.self),
                   let decoder = try? pipeline.context(handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self) {
                    try? pipeline.addHandler(FreshHitHandler(encoder: decoder, answer: answer), position: .after(state))
                }
                context.fireChannelRead(data)
                pipeline.removeHandler(context: context, promise: nil)
                return
            }
            context.fireChannelRead(data)
        }
    }
}
