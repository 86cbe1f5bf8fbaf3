import HTTPTypes
import HummingbirdCore
import Logging
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
/// pipeline behind the raw handler, with ``FreshHitHandler`` right after NIO's decoder, and
/// only then does the connection's task (``handle(value:logger:)``) start serving it through
/// HummingbirdCore's responder loop.
///
/// Without the event-loop path (tests comparing the two paths), ``ClientTimeouts`` is the
/// first handler, the HTTP/1 pipeline is installed at once and HummingbirdCore keeps the
/// idle timeout.
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
    let headerTimeout: TimeAmount
    let sendTimeout: TimeAmount
    let connectionLimit: ConnectionLimit?
    /// What answers fresh hits on the event loop, when they are.
    let hits: Hits?

    /// The event-loop path's pieces.
    struct Hits: Sendable {
        let idleTimeout: TimeAmount
        let decoded: @Sendable (HTTPRequestHead) -> FreshHitHandler.Answer?
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
            let timeouts = ClientTimeouts(headerTimeout: headerTimeout, sendTimeout: sendTimeout)
            guard let hits else {
                try pipeline.addHandler(timeouts)
                let value = http1.setup(channel: channel, logger: logger)
                try installGate(on: channel.pipeline.syncOperations)
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
                let gate = try installGate(on: context.pipeline.syncOperations)
                try context.pipeline.syncOperations.addHandler(FreshHitHandler(timeouts: timeouts, idle: idle, answer: hits.decoded), position: .after(gate))
            }
            try pipeline.addHandler(raw)
            return Connection(channel: channel, http1: installed.futureResult)
        }
    }

    /// Puts a ``RequestGate`` right behind NIO's request decoder, installed by HTTP1Channel.
    @discardableResult
    private func installGate(on pipeline: ChannelPipeline.SynchronousOperations) throws -> RequestGate {
        let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
        let gate = RequestGate(admission: self.gate)
        try pipeline.addHandler(gate, position: .after(decoder))
        return gate
    }

    func handle(value: Connection, logger: Logger) async {
        guard let channel = try? await value.http1.get() else { return }
        await http1.handle(value: channel, logger: logger)
    }
}
