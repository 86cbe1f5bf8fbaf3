import Foundation
import HTTPTypes
import HummingbirdCore
public import Logging
import NIOCore
import NIOPosix
import StashCore
import StashHTTP

extension HTTPCachingProxy {
    /// Serves the proxy until the surrounding task is cancelled.
    ///
    /// ```swift
    /// let task = Task { try await proxy.run(port: 0) { port in print("listening on", port) } }
    /// // …
    /// task.cancel()
    /// ```
    ///
    /// The server is HummingbirdCore's HTTP/1.1 channel used directly, not a Hummingbird
    /// `Application`, because an application stamps its own `Date` on every response and a
    /// cache must pass the origin's `Date` through unchanged. A request takes one of two
    /// paths, each with one lookup: fresh hits on plain `GET` and `HEAD` requests, read from
    /// the connection's raw bytes until its first request that is not one, are answered on
    /// the event loop from bytes prepared when the response was first served (with a cache of
    /// this process only); every other request goes through NIO's decoder, the admission rule
    /// (`RequestGate`) and the cache's flow, bodies from the upstream passed on as they
    /// arrive (``/StashHTTP/HTTPCache/streamResponse(to:body:policy:revalidatesInBackground:send:)``).
    /// Both give the same bytes.
    ///
    /// The limits of ``configuration`` apply: a client whose request head is not whole
    /// within ``Configuration/headerTimeout`` of its first byte is disconnected, so is a
    /// connection without a request for ``Configuration/idleTimeout`` (HummingbirdCore's
    /// idle timeout), so is one that leaves the proxy unable to send for
    /// ``Configuration/sendTimeout``, and past ``Configuration/maximumConnections`` new
    /// connections are accepted and closed at once.
    ///
    /// Cancelling the task shuts the server down gracefully: it stops accepting, finishes
    /// the requests in flight and closes idle connections, then `run` returns.
    ///
    /// - parameters:
    ///   - host: The address to listen on.
    ///   - port: The port; 0 picks a free one, reported to `onRunning`.
    ///   - logger: Where the server reports connection errors.
    ///   - accessLog: Where a line per request goes (`info` level; format in the StashHTTP guide's
    ///     proxy section: `METHOD TARGET STATUS BYTES SECONDS CACHE`); `nil`, the default,
    ///     writes none. Metrics go through swift-metrics whatever this says.
    ///   - onRunning: Called once with the bound port.
    /// - throws: When the address cannot be bound.
    public func run(
        host: String = "127.0.0.1", port: Int, logger: Logger = Logger(label: "stash.http-proxy"), accessLog: Logger? = nil,
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws {
        let limits = configuration
        let report = RequestReport(accessLog: accessLog, factory: metricsFactory)
        let responder: HTTPChannelHandler.Responder = { request, writer, channel in
            let started = ContinuousClock.now
            let method = request.head.method
            let target = request.head.headerFields[RequestGate.targetName] ?? request.head.path ?? "/"
            let upload = self.upload(of: request, channel: channel)
            // The request's body is read on this task (``UploadBody``), never on the upstream
            // client's, and is done with before the connection reads anything else.
            async let bodyRead = upload?.body.pump() ?? true
            let (head, answer, outcome) = await self.streamedAnswer(to: request.head, upload: upload, report: report)
            let written: Result<Int, any Error>
            do {
                written = .success(try await Self.write(head, answer, method: method, to: writer, channel: channel))
            } catch {
                written = .failure(error)
            }
            upload?.body.release()
            let wholeBodyRead = await bodyRead
            let bytes = try written.get()
            report.record(method: method, target: target, status: head.status.code, bytes: bytes, outcome: outcome, started: started)
            // A refusal leaves unread bytes behind (a body too large, a request after one
            // refused), and so does a body the client had not finished sending: no more is
            // read. Throwing closes the connection once the answer is out, where returning
            // would have HummingbirdCore read the rest.
            if head.headerFields[.connection] == "close" || !wholeBodyRead { throw RefusalClosesTheConnection() }
        }
        let hits = answersHitsOnEventLoop ? ProxyChildChannel.Hits(
            idleTimeout: TimeAmount(limits.idleTimeout), raw: { self.freshWire(to: $0, report: report) }
        ) : nil
        let connections = ProxyChildChannel(
            // HummingbirdCore's idle timeout runs once a connection has gone to the decoder;
            // before, the raw hit handler's, which sees every request.
            http1: HTTP1Channel(responder: responder, configuration: .init(idleTimeout: TimeAmount(limits.idleTimeout))),
            gate: admission, openConnections: report.openConnections,
            headerTimeout: TimeAmount(limits.headerTimeout), sendTimeout: TimeAmount(limits.sendTimeout),
            connectionLimit: limits.maximumConnections.map { ConnectionLimit(maximum: max($0, 1)) }, hits: hits
        )
        let server = connections.server(
            // A backlog as long as the default connection cap: 500 clients connecting at once
            // overflow HummingbirdCore's 256, and a dropped SYN costs its client a second.
            configuration: ServerConfiguration(address: .hostname(host, port: port), backlog: 1024),
            onServerRunning: { channel in
                // Accept up to 256 waiting connections per wake-up rather than NIO's 4: with
                // hundreds of clients connecting at once, 4 a turn of a busy event loop left
                // requests waiting in unaccepted sockets for hundreds of milliseconds.
                try? await channel.setOption(ChannelOptions.maxMessagesPerRead, value: 256).get()
                // And go on accepting while HummingbirdCore's connection loop is behind, up to
                // the connection cap (without one, the loop's own gate is the only bound).
                if limits.maximumConnections != nil { await AcceptAhead.install(on: channel) }
                await onRunning(channel.localAddress?.port ?? port)
            },
            eventLoopGroup: NIOSingletons.posixEventLoopGroup,
            logger: logger
        )
        try await GracefulShutdown.run(server, logger: logger)
    }

    /// Writes `head` and `answer` to the client and returns the body bytes sent: a whole
    /// body at once, a streamed one part by part as it arrives (the writer waits while the
    /// client is slower than the origin). A part that cannot be read ends the response
    /// early and throws, which closes the connection.
    private static func write(
        _ head: HTTPResponse, _ answer: HTTPBodyStream, method: HTTPRequest.Method, to writer: consuming ResponseWriter, channel: any Channel
    ) async throws -> Int {
        if let data = answer.wholeData {
            try await writer.write(response: head, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
            return method == .head ? 0 : data.count
        }
        let sent = LockedValue(0)
        try await writer.write(response: head, body: ResponseBody { writer in
            var pacing = WritePacing(channel: channel)
            var parts = answer.makeAsyncIterator()
            while true {
                let part: Data?
                do {
                    part = try await parts.next()
                } catch {
                    // The upstream's failure, never passed on as it is: HummingbirdCore answers
                    // an HTTP parser error with a `400` of its own, which would land in the
                    // middle of this response.
                    throw UpstreamBodyFailed()
                }
                guard let part else { break }
                try await writer.write(ByteBuffer(bytes: part))
                sent.withLock { $0 += part.count }
                try await pacing.wrote(part.count)
            }
            try await writer.finish(nil)
        })
        return sent.withLock { $0 }
    }

    /// The body of `request`, passed on as it arrives (``UploadBody``), or `nil` when it has
    /// none (no `Transfer-Encoding`, and no `Content-Length` or `0`).
    private func upload(of request: Request, channel: any Channel) -> Upload? {
        let fields = request.head.headerFields
        let length = fields[.contentLength].flatMap { Int($0) }
        guard fields[.transferEncoding] != nil || (length ?? 0) > 0 else { return nil }
        return Upload(
            body: UploadBody(
                request.body, limit: configuration.maximumRequestBodySize, timeout: TimeAmount(configuration.requestBodyTimeout),
                lingering: UploadBody.Lingering(), channel: channel
            ),
            length: fields[.transferEncoding] == nil ? length : nil
        )
    }
}

/// Thrown by the proxy's responder after it wrote a refusal, so that HummingbirdCore closes
/// the connection instead of reading what the client still sends.
struct RefusalClosesTheConnection: Error {}

/// Thrown by the proxy's responder when the upstream's body fails part way (cut, or
/// malformed): HummingbirdCore then closes the connection, and the client sees a body
/// shorter than announced, or without its last chunk.
struct UpstreamBodyFailed: Error {}
