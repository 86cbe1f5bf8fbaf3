import NIOCore
import StashCore

/// Caps the client connections a server has open at once. A connection past the cap is
/// accepted and closed at once, before any of its bytes is read.
///
/// Closing rather than answering `503`: a `503` can only be written once the request head
/// has been read, so every refused connection would keep a socket and a buffer for up to
/// the header timeout, which is what the cap is there to prevent; a connection closed
/// before any response byte is one that HTTP clients may retry (RFC 9110 §9.2.2).
final class ConnectionLimit: Sendable {
    let maximum: Int
    private let open = LockedValue(0)

    init(maximum: Int) { self.maximum = maximum }

    /// The connections admitted and not yet closed.
    var count: Int { open.withLock { $0 } }

    fileprivate func admit() -> Bool {
        open.withLock { count in
            guard count < maximum else { return false }
            count += 1
            return true
        }
    }

    fileprivate func release() { open.withLock { $0 -= 1 } }

    /// The handler to put in each connection's pipeline.
    func handler() -> Handler { Handler(limit: self) }

    /// Admits its connection when it becomes active, or closes it; releases the slot when
    /// the connection closes. Passes every event through untouched.
    final class Handler: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = Never

        private let limit: ConnectionLimit
        private var admitted = false
        private var decided = false

        fileprivate init(limit: ConnectionLimit) { self.limit = limit }

        func handlerAdded(context: ChannelHandlerContext) {
            if context.channel.isActive { decide(context) }
        }

        func channelActive(context: ChannelHandlerContext) {
            decide(context)
            if admitted { context.fireChannelActive() }
        }

        func channelInactive(context: ChannelHandlerContext) {
            releaseSlot()
            context.fireChannelInactive()
        }

        func handlerRemoved(context: ChannelHandlerContext) { releaseSlot() }

        private func decide(_ context: ChannelHandlerContext) {
            guard !decided else { return }
            decided = true
            admitted = limit.admit()
            if !admitted { context.close(promise: nil) }
        }

        private func releaseSlot() {
            if admitted {
                admitted = false
                limit.release()
            }
        }
    }
}
