import Foundation
import HummingbirdCore
import NIOCore
import NIOHTTP1
import StashCore
import StashHTTP

/// A client's request body on its way to the upstream: passed on part by part as it
/// arrives (never collected whole, one part at a time: the client is read only as fast as
/// the upstream takes it), at most ``HTTPCachingProxy/Configuration/maximumRequestBodySize``
/// bytes (counted, so a chunked body is held to it too), and cut when the client sends no
/// byte of it for ``HTTPCachingProxy/Configuration/requestBodyTimeout`` (the connection is
/// then closed).
///
/// ```swift
/// let upload = UploadBody(request.body, limit: 64 << 20, timeout: .seconds(30), lingering: .init(), channel: channel)
/// async let bodyRead = upload.pump()
/// let answer = try await transport.stream(request.head, body: upload.stream, length: length)
/// // … the answer written to the client …
/// upload.release()
/// if !(await bodyRead) { /* close the connection */ }
/// ```
///
/// **The request's body belongs to the request.** The client library that sends ``stream``
/// upstream reads it on a task of its own, may go on reading after the response came back
/// (an origin that answers `401`, `413` or `500` before it has read an upload), and cancels
/// that task when it gives up. The connection's parts are therefore never read on that
/// task: ``pump()`` reads them on the handler's own, one when ``stream``'s reader
/// asks for one, and hands it over. Once the handler has written its answer it calls
/// ``release()``: ``stream`` hands out nothing more (its reader gets an error), and the
/// pump reads and drops what the client still sends, so the connection can carry the next
/// request, before the handler returns and the server reads the connection again.
///
/// Thread-safe: ``stream`` is read by one task at a time (``StashHTTP/HTTPBodyStream``'s
/// contract), beside the handler's pump.
final class UploadBody: Sendable {
    /// How reading the body ended, when it did not end well.
    enum Outcome: Sendable, Equatable {
        /// Still arriving, or read to its end.
        case fine
        /// Past the size limit.
        case tooLarge
        /// No byte arrived for the timeout; the connection was closed.
        case timedOut
        /// The client framed it wrongly (a chunk size that is no number, say): NIO's decoder
        /// gave up on the connection.
        case malformed
    }

    /// The body's parts, for the transport.
    let stream: HTTPBodyStream
    private let state: LockedValue<State>
    private let body: RequestBody
    private let channel: any Channel
    private let limit: Int
    private let timeout: TimeAmount
    private let lingering: Lingering

    /// How long the rest of a body is read and dropped once the answer is out (nginx's
    /// lingering close: a client reset while it is still sending may lose the answer).
    struct Lingering: Sendable {
        /// At most this long from ``UploadBody/release()`` (nginx's `lingering_time`).
        var total: TimeAmount = .seconds(30)
        /// And at most this long without a byte (nginx's `lingering_timeout`).
        var pause: TimeAmount = .seconds(5)
    }

    /// The hand-over between the pump and ``stream``'s reader.
    private struct State {
        var outcome = Outcome.fine
        /// The reader waiting for the next part.
        var reader: CheckedContinuation<Data?, any Error>?
        /// The pump waiting for a reader to ask (or for ``release()``).
        var pump: CheckedContinuation<Void, Never>?
        /// Whether the handler is done with the answer: ``stream`` hands out no more.
        var released = false
        /// When the connection closes unless the body has ended by then, from ``release()`` on.
        var deadline: Scheduled<Void>?
        /// Whether the pump is done: no read is in flight, none will be.
        var pumpEnded = false
        /// The clock of the read in flight: it closes the connection when no byte comes in time.
        var readClock: Scheduled<Void>?
        /// How the body ended for ``stream``: `nil` while it goes on, else the end (`.success`)
        /// or what ended it.
        var end: Result<Void, any Error>?
    }

    /// - parameters:
    ///   - lingering: How long, from ``release()``, the client may go on sending what is
    ///     left of the body before the connection closes.
    init(_ body: RequestBody, limit: Int, timeout: TimeAmount, lingering: Lingering, channel: any Channel) {
        let state = LockedValue(State())
        self.state = state
        self.body = body
        self.channel = channel
        self.limit = limit
        self.timeout = timeout
        self.lingering = lingering
        stream = HTTPBodyStream(next: { try await Self.nextPart(state) }, endsFramed: true)
    }

    /// How reading the body went so far.
    var outcome: Outcome { state.withLock { $0.outcome } }

    /// Says the answer is written: ``stream`` hands out no more parts, and the pump turns to
    /// dropping what the client still sends.
    func release() {
        // A read in flight (one the upstream client asked for and gave up on) is held to the
        // lingering pause from now, not to the body's own timeout.
        let (channel, pause) = (channel, lingering.pause)
        let deadline = channel.eventLoop.scheduleTask(in: lingering.total) { channel.close(promise: nil) }
        let (pump, reader, readClock) = state.withLock { state in
            state.released = true
            if state.pumpEnded { deadline.cancel() } else { state.deadline = deadline }
            let readClock = state.readClock
            if readClock != nil {
                state.readClock = channel.eventLoop.scheduleTask(in: pause) { channel.close(promise: nil) }
            }
            defer {
                state.pump = nil
                state.reader = nil
            }
            return (state.pump, state.reader, readClock)
        }
        readClock?.cancel()
        reader?.resume(throwing: StashError(.closed, "the request this body belongs to is over"))
        pump?.resume()
    }

    /// Reads the body on the calling task (the handler's) until ``release()``, then drops
    /// the rest, up to the size limit once more, while bytes keep coming (``Lingering``:
    /// nginx's lingering close, so that a client still sending is not reset
    /// before it has read the answer). Returns whether the body was read to its end, so that
    /// the connection may carry the client's next request; `false`: the connection must close.
    func pump() async -> Bool {
        var iterator = body.makeAsyncIterator()
        defer {
            state.withLock { state in
                state.pumpEnded = true
                return state.deadline
            }?.cancel()
        }
        var count = 0
        // Handing parts over, one for each request of the reader.
        while await demand() {
            let part: ByteBuffer?
            do {
                part = try await read(&iterator)
            } catch {
                finish(.failure(error))
                return false
            }
            guard let part else {
                finish(.success(()))
                return true
            }
            count += part.readableBytes
            if count > limit {
                state.withLock { $0.outcome = .tooLarge }
                finish(.failure(StashError(.unsupportedValue, "a request body over \(limit) bytes")))
                // The `413` is still to be written: the rest is dropped after it, as below.
                while await demand() {}
                break
            }
            hand(Data(part.readableBytesView))
        }
        // Released: what the client still sends is read and dropped, within bounds.
        var dropped = 0
        do {
            while dropped <= limit {
                guard let part = try await read(&iterator) else { return true }
                dropped += part.readableBytes
            }
        } catch {}
        return false
    }

    /// Waits until the reader asks for a part (`true`) or the handler releases the body (`false`).
    private func demand() async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state in
                guard !state.released, state.reader == nil else { return true }
                state.pump = continuation
                return false
            }
            if now { continuation.resume() }
        }
        return state.withLock { !$0.released }
    }

    /// Gives `part` to the waiting reader (or drops it, released meanwhile).
    private func hand(_ part: Data) {
        let reader = state.withLock { state in
            defer { state.reader = nil }
            return state.reader
        }
        reader?.resume(returning: part)
    }

    /// Ends ``stream`` with `end`: its reader gets `nil` at the end, or the error.
    private func finish(_ end: Result<Void, any Error>) {
        let reader = state.withLock { state in
            state.end = end
            defer { state.reader = nil }
            return state.reader
        }
        switch end {
        case .success: reader?.resume(returning: nil)
        case .failure(let error): reader?.resume(throwing: error)
        }
    }

    /// The next part of the body; the connection closes when none comes within the body's
    /// timeout (the lingering pause once released), which ends the wait with an error.
    private func read(_ iterator: inout RequestBody.AsyncIterator) async throws -> ByteBuffer? {
        let (channel, state, timeout, pause) = (channel, state, timeout, lingering.pause)
        state.withLock { now in
            now.readClock = channel.eventLoop.scheduleTask(in: now.released ? pause : timeout) {
                state.withLock { if $0.outcome == .fine, !$0.released { $0.outcome = .timedOut } }
                channel.close(promise: nil)
            }
        }
        defer {
            state.withLock { state in
                defer { state.readClock = nil }
                return state.readClock
            }?.cancel()
        }
        do {
            return try await iterator.next()
        } catch let error as HTTPParserError {
            state.withLock { if $0.outcome == .fine, channel.isActive { $0.outcome = .malformed } }
            throw error
        }
    }

    /// ``stream``'s next part: asks the pump and waits for it. A reader cancelled while it
    /// waits gets `CancellationError`, and the pump goes on with the connection untouched.
    private static func nextPart(_ state: LockedValue<State>) async throws -> Data? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data?, any Error>) in
                enum Now { case wait(CheckedContinuation<Void, Never>?), end(Result<Void, any Error>), over, cancelled }
                let now: Now = state.withLock { state in
                    if let end = state.end { return .end(end) }
                    if state.released { return .over }
                    if Task.isCancelled { return .cancelled }
                    state.reader = continuation
                    defer { state.pump = nil }
                    return .wait(state.pump)
                }
                switch now {
                case .wait(let pump): pump?.resume()
                case .end(.success): continuation.resume(returning: nil)
                case .end(.failure(let error)): continuation.resume(throwing: error)
                case .over: continuation.resume(throwing: StashError(.closed, "the request this body belongs to is over"))
                case .cancelled: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let reader = state.withLock { state in
                defer { state.reader = nil }
                return state.reader
            }
            reader?.resume(throwing: CancellationError())
        }
    }
}
