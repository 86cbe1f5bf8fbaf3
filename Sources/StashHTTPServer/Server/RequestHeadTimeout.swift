import NIOCore

/// Closes a client connection whose request head does not arrive whole within a time limit,
/// counted from the head's first byte (slow clients holding connections open, "slowloris").
///
/// It sits first in the pipeline, on raw bytes, because the HTTP decoder only reports a head
/// once it is complete: it starts the clock on the first byte received while a head is
/// awaited, stops it at the blank line that ends the head, and awaits the next head once a
/// response is being written. Event-loop confined, like every channel handler.
final class RequestHeadTimeout: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer

    private let timeout: TimeAmount
    private var awaitingHead = true
    /// How many bytes of `\r\n\r\n` the head seen so far ends with, so that one split
    /// across reads is found.
    private var matched = 0
    private var timer: Scheduled<Void>?

    init(timeout: TimeAmount) { self.timeout = timeout }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if awaitingHead {
            let bytes = unwrapInboundIn(data).readableBytesView
            if headEnds(in: bytes) {
                // A head that arrives whole in one read (the usual case) never starts the clock.
                awaitingHead = false
                stopClock()
            } else if timer == nil, !bytes.isEmpty {
                timer = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { [context] in
                    context.close(promise: nil)
                }
            }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if !awaitingHead {
            awaitingHead = true
            matched = 0
        }
        context.write(data, promise: promise)
    }

    func channelInactive(context: ChannelHandlerContext) {
        stopClock()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) { stopClock() }

    private func stopClock() {
        timer?.cancel()
        timer = nil
    }

    private func headEnds(in bytes: ByteBufferView) -> Bool {
        var matched = matched
        for byte in bytes {
            if byte == (matched % 2 == 0 ? 13 : 10) {
                matched += 1
                if matched == 4 { return true }
            } else {
                matched = byte == 13 ? 1 : 0
            }
        }
        self.matched = matched
        return false
    }
}

extension RequestHeadTimeout {
    /// Puts a ``RequestHeadTimeout`` first in the pipeline. HummingbirdCore adds extra
    /// handlers after its HTTP decoder, where only whole heads are seen; this one passes
    /// every event through untouched.
    final class Installer: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = Never

        private let timeout: TimeAmount

        init(timeout: TimeAmount) { self.timeout = timeout }

        func handlerAdded(context: ChannelHandlerContext) {
            try? context.pipeline.syncOperations.addHandler(RequestHeadTimeout(timeout: timeout), position: .first)
        }
    }
}
