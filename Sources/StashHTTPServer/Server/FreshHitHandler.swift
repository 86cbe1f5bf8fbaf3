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
/// Because hits never reach HummingbirdCore's `HTTPConnectionStateHandler`, this handler
/// keeps the connection's idle timeout itself (the server gives HummingbirdCore none): it
/// closes a connection that has neither read a request part nor finished a response for
/// `idleTimeout`, never while a forwarded request is being answered. Graceful shutdown stays
/// HummingbirdCore's: the state handler counts the forwarded requests, and a hit is whole
/// once answered.
///
/// Responses keep the order of requests: a request is answered here only when every
/// request handed on has had its response end written, so a pipelined hit behind a miss
/// waits its turn in the responder. The rest of a request answered here (a body, its end) is
/// dropped. Event-loop confined, like every channel handler.
final class FreshHitHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// A hit's response: its head and, for a `GET`, its body.
    typealias Answer = (head: HTTPResponseHead, body: ByteBuffer?)

    private let answer: (HTTPRequestHead) -> Answer?
    private let idleTimeout: TimeAmount?
    /// Requests handed on whose response end has not been written yet.
    private var forwarded = 0
    /// Whether the parts of a request answered here are still arriving (they are dropped).
    private var dropping = false
    /// Whether the parts of a request handed on are still arriving.
    private var reading = false
    /// Whether something was written since the last flush.
    private var unflushed = false
    /// When the connection last read a request part or finished a response.
    private var lastActive = NIODeadline.now()
    private var idleTimer: Scheduled<Void>?

    init(idleTimeout: TimeAmount?, answer: @escaping (HTTPRequestHead) -> Answer?) {
        self.idleTimeout = idleTimeout
        self.answer = answer
    }

    /// Counts a request answered before the decoder (``RawHitHandler``) as activity.
    func noteActivity() {
        if idleTimeout != nil { lastActive = .now() }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        noteActivity()
        switch unwrapInboundIn(data) {
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
        if case .end = unwrapOutboundIn(data), forwarded > 0 {
            forwarded -= 1
            if forwarded == 0, idleTimeout != nil {
                lastActive = .now()
                scheduleIdleCheck(context, at: lastActive)
            }
        }
        context.write(data, promise: promise)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { scheduleIdleCheck(context, at: .now()) }
    }

    func channelActive(context: ChannelHandlerContext) {
        scheduleIdleCheck(context, at: .now())
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelIdleCheck()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) { cancelIdleCheck() }

    /// Checks for idleness `idleTimeout` after `start`, unless a check is already scheduled.
    private func scheduleIdleCheck(_ context: ChannelHandlerContext, at start: NIODeadline) {
        guard let idleTimeout, idleTimer == nil else { return }
        idleTimer = context.eventLoop.assumeIsolated().scheduleTask(deadline: start + idleTimeout) { [self] in
            idleTimer = nil
            // A forwarded request read whole and still being answered is not idle: the
            // check starts again when its response ends.
            if forwarded > 0, !reading { return }
            let deadline = lastActive + idleTimeout
            if deadline <= .now() {
                context.close(promise: nil)
            } else {
                scheduleIdleCheck(context, at: lastActive)
            }
        }
    }

    private func cancelIdleCheck() {
        idleTimer?.cancel()
        idleTimer = nil
    }
}

extension FreshHitHandler {
    /// Puts a ``FreshHitHandler`` right after NIO's request decoder (HummingbirdCore adds its
    /// extra handlers after its HTTPTypes conversion, too late for it) and a
    /// ``RawHitHandler`` right before NIO's response encoder, then steps out of the pipeline.
    final class Installer: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = Never

        private let idleTimeout: TimeAmount?
        private let answer: @Sendable (HTTPRequestHead) -> Answer?
        private let rawAnswer: @Sendable (HTTPRequest) -> RawHitHandler.Answer?

        init(
            idleTimeout: TimeAmount?, answer: @escaping @Sendable (HTTPRequestHead) -> Answer?,
            rawAnswer: @escaping @Sendable (HTTPRequest) -> RawHitHandler.Answer?
        ) {
            self.idleTimeout = idleTimeout
            self.answer = answer
            self.rawAnswer = rawAnswer
        }

        func handlerAdded(context: ChannelHandlerContext) {
            let pipeline = context.pipeline.syncOperations
            if let decoder = try? pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self),
               let encoder = try? pipeline.handler(type: HTTPResponseEncoder.self) {
                let decoded = FreshHitHandler(idleTimeout: idleTimeout, answer: answer)
                try? pipeline.addHandler(decoded, position: .after(decoder))
                try? pipeline.addHandler(RawHitHandler(decoded: decoded, answer: rawAnswer), position: .before(encoder))
            }
            pipeline.removeHandler(context: context, promise: nil)
        }
    }
}
