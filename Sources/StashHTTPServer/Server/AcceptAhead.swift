import NIOCore
import NIOPosix

/// Keeps a server channel accepting connections while HummingbirdCore's connection loop
/// catches up.
///
/// HummingbirdCore hands each accepted connection to an async loop (`NIOAsyncChannel`) that
/// runs at most ten connections ahead of it: past that, NIO stops accepting until the loop,
/// a task on the concurrency pool, takes some. Under load, with the event loops and the
/// clients holding every core, that task waits for one, and hundreds of clients connecting
/// at once wait in the listen backlog with their requests unread, although everything that
/// answers a hit is in place the moment a connection is accepted (``ProxyChildChannel``).
/// Below the loop's gate, this handler asks for the next accept after each batch itself. The
/// connections the loop has not taken yet are served meanwhile; the connection cap
/// (``ConnectionLimit``) bounds how many stay open, so the proxy installs it only with one.
/// It sits behind NIO's accept backoff, which withholds these reads too for a moment after
/// an accept fails (out of descriptors): asking at once, with the failed connection still in
/// the backlog, would spin the event loop.
///
/// Event-loop confined, like every channel handler; ``install(on:)`` puts one on the
/// server channel once it is bound.
final class AcceptAhead: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = any Channel

    func channelReadComplete(context: ChannelHandlerContext) {
        context.fireChannelReadComplete()
        context.read()
    }

    /// Puts an ``AcceptAhead`` in `server`'s pipeline, right behind NIO's accept backoff (or
    /// first, without one), and asks for the next accept below the loop's gate at once.
    static func install(on server: any Channel) async {
        try? await server.eventLoop.submit {
            let handler = AcceptAhead()
            let pipeline = server.pipeline.syncOperations
            if let backoff = try? pipeline.handler(type: AcceptBackoffHandler.self) {
                try pipeline.addHandler(handler, position: .after(backoff))
            } else {
                try pipeline.addHandler(handler, position: .first)
            }
            try pipeline.context(handler: handler).read()
        }.get()
    }
}
