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

    /// Admits `channel`, a connection just accepted, and frees its slot when it closes; or,
    /// past the cap, puts the one handler in its pipeline that closes it as soon as it is
    /// active, and answers `false` (nothing else is to be set up on it). An admitted
    /// connection carries no handler of the cap's, so its reads and writes do not pass one.
    func admit(_ channel: any Channel) throws -> Bool {
        let admitted = open.withLock { count in
            guard count < maximum else { return false }
            count += 1
            return true
        }
        guard admitted else {
            try channel.pipeline.syncOperations.addHandler(Refusal())
            return false
        }
        channel.closeFuture.whenComplete { _ in self.open.withLock { $0 -= 1 } }
        return true
    }

    /// Closes its connection, refused, as soon as it is active, before any of its bytes is read.
    private final class Refusal: ChannelInboundHandler {
        typealias InboundIn = Never

        func handlerAdded(context: ChannelHandlerContext) {
            if context.channel.isActive { context.close(promise: nil) }
        }

        func channelActive(context: ChannelHandlerContext) { context.close(promise: nil) }
    }
}
