import Foundation
import HummingbirdCore
import NIOCore
import StashCore
import StashHTTP

/// A client's request body on its way to the upstream: passed on part by part as it
/// arrives (never collected whole), at most ``HTTPCachingProxy/Configuration/maximumRequestBodySize``
/// bytes (counted, so a chunked body is held to it too), and cut when the client sends no
/// byte of it for ``HTTPCachingProxy/Configuration/requestBodyTimeout`` (the connection is
/// then closed).
///
/// ```swift
/// let upload = UploadBody(request.body, maximum: 64 << 20, timeout: .seconds(30), channel: channel)
/// try await transport.stream(request.head, body: upload.stream, length: length)
/// if upload.outcome == .tooLarge { /* answer 413 */ }
/// ```
///
/// Read by one task (``StashHTTP/HTTPBodyStream``'s contract); ``outcome`` may be read from any.
final class UploadBody: Sendable {
    /// How reading the body ended, when it did not end well.
    enum Outcome: Sendable, Equatable {
        /// Still arriving, or read to its end.
        case fine
        /// Past the maximum size.
        case tooLarge
        /// No byte arrived for the timeout; the connection was closed.
        case timedOut
    }

    /// The body's parts, for the transport.
    let stream: HTTPBodyStream
    private let state: LockedValue<Outcome>

    init(_ body: RequestBody, maximum: Int, timeout: TimeAmount, channel: any Channel) {
        let state = LockedValue(Outcome.fine)
        let reader = Reader(body.makeAsyncIterator())
        self.state = state
        stream = HTTPBodyStream(next: {
            // The clock runs while a part is awaited; one that does not come in time closes
            // the connection, which ends the wait with an error.
            let clock = channel.eventLoop.scheduleTask(in: timeout) {
                state.withLock { $0 = .timedOut }
                channel.close(promise: nil)
            }
            defer { clock.cancel() }
            guard let part = try await reader.next() else { return nil }
            reader.count += part.readableBytes
            if reader.count > maximum {
                state.withLock { $0 = .tooLarge }
                throw StashError(.unsupportedValue, "a request body over \(maximum) bytes")
            }
            return Data(part.readableBytesView)
        }, endsFramed: true)
    }

    /// How reading the body went so far.
    var outcome: Outcome { state.withLock { $0 } }

    /// The request body's iterator and the bytes it gave, used by one task at a time.
    private final class Reader: @unchecked Sendable {
        private var iterator: RequestBody.AsyncIterator
        var count = 0

        init(_ iterator: RequestBody.AsyncIterator) { self.iterator = iterator }

        func next() async throws -> ByteBuffer? { try await iterator.next() }
    }
}
