import HTTPTypes
import HummingbirdCore
import Logging
import Metrics
import NIOCore
import NIOHTTP1
import StashHTTPWire

/// How the proxy sets up each client connection for HummingbirdCore's server.
///
/// With hits answered on the event loop, a connection starts with one handler,
/// ``RawHitHandler``, which answers fresh hits from the raw bytes and drives the
/// connection's ``ClientTimeouts`` (the connection cap, ``ConnectionLimit``, adds no handler
/// to a connection it admits). A connection that only ever asks for fresh hits (the hot path) never
/// has more: no HTTP decoder or encoder, no HummingbirdCore handler, nothing for each read to
/// walk through. Its first request that is not such a hit installs HummingbirdCore's HTTP/1
/// pipeline behind the raw handler, with ``RequestGate`` right after NIO's decoder, and only
/// then does the connection's task (``handle(value:logger:)``) start serving it through
/// HummingbirdCore's responder loop, which keeps the idle timeout from then on. Every
/// request on such a connection takes the full flow: two paths, each with one lookup.
///
/// Without the event-loop path (tests comparing the two paths), ``ClientTimeouts`` is the
/// first handler and the HTTP/1 pipeline, with its gate, is installed at once.
struct ProxyChildChannel: ServerChildChannel {
    /// A connection and the HTTP/1 channel installed on it, when it is.
    struct Connection: ServerChildChannelValue {
        let channel: any Channel
        /// Succeeds when the HTTP/1 pipeline is installed; fails when the connection closes first.
        let http1: EventLoopFuture<HTTP1Channel.Value>
    }

    let http1: HTTP1Channel
    /// The rule every decoded request meets (``RequestGate``, right behind the decoder).
    let gate: RequestAdmission
    /// Counts the connections open now.
    let openConnections: Meter
    let headerTimeout: TimeAmount
    let sendTimeout: TimeAmount
    let connectionLimit: ConnectionLimit?
    /// What answers fresh hits on the event loop, when they are.
    let hits: Hits?

    /// The event-loop path's pieces.
    struct Hits: Sendable {
        /// The idle timeout the raw hit handler keeps until the connection goes to the decoder.
        let idleTimeout: TimeAmount
        let raw: @Sendable (PlainRequestHead.Request) -> RawHitHandler.Answer?
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Connection> {
        channel.eventLoop.makeCompletedFuture {
            let pipeline = channel.pipeline.syncOperations
            let installed = channel.eventLoop.makePromise(of: HTTP1Channel.Value.self)
            if let connectionLimit, try !connectionLimit.admit(channel) {
                installed.fail(ChannelError.ioOnClosedChannel)
                return Connection(channel: channel, http1: installed.futureResult)
            }
            openConnections.increment()
            channel.closeFuture.whenComplete { [openConnections] _ in openConnections.decrement() }
            let timeouts = ClientTimeouts(headerTimeout: headerTimeout, sendTimeout: sendTimeout)
            guard let hits else {
                try pipeline.addHandler(timeouts)
                let value = http1.setup(channel: channel, logger: logger)
                try installGate(on: channel.pipeline.syncOperations, timeouts: timeouts)
                installed.completeWith(value)
                return Connection(channel: channel, http1: installed.futureResult)
            }
            channel.closeFuture.whenComplete { _ in installed.fail(ChannelError.ioOnClosedChannel) }
            let idle = IdleTimeout(timeout: hits.idleTimeout)
            let raw = RawHitHandler(timeouts: timeouts, idle: idle, answer: hits.raw) { context in
                // HTTP1Channel's set-up runs at once on the connection's event loop, so its
                // future is complete when it returns and its callback runs right here.
                let value = http1.setup(channel: context.channel, logger: logger)
                installed.completeWith(value)
                var outcome: Result<HTTP1Channel.Value, any Error> = .failure(ChannelError.inappropriateOperationForState)
                value.assumeIsolated().whenComplete { outcome = $0 }
                _ = try outcome.get()
                try installGate(on: context.pipeline.syncOperations, timeouts: timeouts)
            }
            try pipeline.addHandler(raw)
            return Connection(channel: channel, http1: installed.futureResult)
        }
    }

    /// Puts a ``RequestGate`` right behind NIO's request decoder, installed by HTTP1Channel.
    private func installGate(on pipeline: ChannelPipeline.SynchronousOperations, timeouts: ClientTimeouts) throws {
        let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
        try pipeline.addHandler(RequestGate(admission: gate, timeouts: timeouts), position: .after(decoder))
    }

    func handle(value: Connection, logger: Logger) async {
        guard let channel = try? await value.http1.get() else { return }
        await http1.handle(value: channel, logger: logger)
    }
}
