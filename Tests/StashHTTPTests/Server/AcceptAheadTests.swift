import NIOCore
import NIOEmbedded
import Testing
@testable import StashHTTPServer

/// ``AcceptAhead`` on an `EmbeddedChannel` standing for a server channel: behind it, a gate
/// that withholds every `read()` stands for HummingbirdCore's connection loop when it has
/// fallen ten connections behind.
struct AcceptAheadTests {
    /// Withholds every `read()` that reaches it, as `NIOAsyncChannel`'s handler does while its
    /// consumer is behind.
    private final class ClosedGate: ChannelOutboundHandler {
        typealias OutboundIn = Never
        private(set) var withheld = 0

        func read(context: ChannelHandlerContext) { withheld += 1 }
    }

    @Test func eachBatchOfAcceptsAsksForTheNextBelowTheGate() throws {
        let server = EmbeddedChannel()
        let socket = EmbeddedProbes.Socket()
        let gate = ClosedGate()
        try server.pipeline.syncOperations.addHandlers([socket, AcceptAhead(), gate])
        // What NIO does after a batch: the read complete, then its own read() from the tail.
        server.pipeline.fireChannelReadComplete()
        server.read()
        // NIO's own read() stops at the gate; the one asked for here does not.
        #expect(gate.withheld == 1)
        #expect(socket.reads == 1)
        server.pipeline.fireChannelReadComplete()
        #expect(socket.reads == 2)
    }
}
