import Foundation
import NIOCore
import NIOEmbedded
import NIOConcurrencyHelpers
import NIOPosix
import StashTestSupport
import Testing
@testable import StashHTTPServer

/// ``AcceptAhead`` on an `EmbeddedChannel` standing for a server channel: behind it, a gate
/// that withholds every `read()` stands for HummingbirdCore's connection loop when it has
/// fallen ten connections behind; and in a real proxy whose connection loop is held.
struct AcceptAheadTests {
    /// On a real server channel bound as HummingbirdCore binds it (a `NIOAsyncChannel` of
    /// child channels, NIO's default backpressure) whose connections nobody takes, as when
    /// HummingbirdCore's connection loop waits for a core: every client that connects is
    /// still accepted, and so its child channel set up (where the proxy answers hits). Without
    /// ``AcceptAhead`` accepts stop once about ten connections wait to be taken, and the next
    /// client waits in the listen backlog.
    @Test func connectionsNobodyTakesAreStillAccepted() async throws {
        let accepted = NIOLockedValueBox(0)
        // The child channels themselves go to the async channel (HummingbirdCore wraps each in
        // an async channel of its own; nothing here would finish their writers).
        let server = try await ServerBootstrap(group: NIOSingletons.posixEventLoopGroup)
            .serverChannelOption(.backlog, value: 64)
            .bind(host: "127.0.0.1", port: 0) { (child: any Channel) in
                child.eventLoop.makeCompletedFuture {
                    accepted.withLockedValue { $0 += 1 }
                    return child
                }
            }
        await AcceptAhead.install(on: server.channel)
        // Behind NIO's accept backoff, which must be able to withhold its reads after a failed
        // accept (out of descriptors), or the loop would spin.
        let order = server.channel.pipeline.debugDescription
        let backoff = try #require(order.range(of: "AcceptBackoffHandler"))
        let ahead = try #require(order.range(of: "AcceptAhead"))
        #expect(backoff.lowerBound < ahead.lowerBound, "\(order)")
        let port = try #require(server.channel.localAddress?.port)
        // Nobody takes the connections from `inbound`; `executeThenClose` closes the server
        // and finishes what the async channel holds however the body ends.
        try await server.executeThenClose { _ in
            // One client at a time, each accepted before the next connects, so each is an
            // accept batch of its own (a burst could be taken in one batch, before the gate closes).
            var clients: [RawClient] = []
            for index in 1...30 {
                clients.append(try RawClient(port: port))
                var waited = 0
                while accepted.withLockedValue({ $0 }) < index, waited < 500 {
                    try await Task.sleep(for: .milliseconds(10))
                    waited += 1
                }
                guard accepted.withLockedValue({ $0 }) == index else {
                    Issue.record("client \(index) was not accepted within 5 s")
                    break
                }
            }
        }
    }

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
