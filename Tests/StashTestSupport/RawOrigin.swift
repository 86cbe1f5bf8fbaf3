import Foundation
import StashCore
import StashToolSupport

/// An origin on 127.0.0.1 that speaks HTTP/1.1 byte for byte: it records each request line
/// and answers the n-th request of the whole run with the n-th scripted reply, verbatim, so
/// tests can send what a well-behaved server never would (more bytes than `Content-Length`).
/// Each connection is served on a thread of its own; the class is safe to use from any task.
///
/// ```swift
/// let origin = try RawOrigin(replies: [
///     "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello\(RawOrigin.pause)world",
/// ], pauseLength: .seconds(5))
/// defer { origin.stop() }
/// // … point a proxy at "http://127.0.0.1:\(origin.port)" …
/// ```
public final class RawOrigin: @unchecked Sendable {
    /// Written inside a reply: the origin waits (``pauseLength``, 300 ms unless set) before
    /// sending the rest, so the rest arrives after the client considers the response complete.
    public static let pause = "<pause>"
    /// Ending a reply: the origin closes the connection once the reply is sent.
    public static let hangUp = "<hang-up>"

    public let port: Int
    private let listener: Int32
    private let replies: [String]
    /// How long each ``pause`` in a reply lasts.
    public let pauseLength: Duration
    private let seen = LockedValue<[String]>([])

    /// The request lines received so far, in order.
    public var requestLines: [String] { seen.withLock { $0 } }

    /// How much of a request's body the origin reads before it answers.
    public enum BodyReading: Sendable {
        /// All of it (its `Content-Length`), as a well-behaved server does.
        case whole
        /// None: it answers once the head is in, as a server refusing an upload does
        /// (`401`, `413`, `500`), then reads and drops the rest of the body (a chunked one
        /// up to its last chunk) and serves the next request on the connection, or hangs up
        /// when the reply ends with ``hangUp``.
        case none
        /// The first `count` bytes, then it answers as for ``none``.
        case prefix(Int)
    }

    /// How much of each request's body the origin reads before it answers.
    public let bodyReading: BodyReading

    /// Replies by request path (the request line's target up to `?`), each as verbatim as
    /// in ``init(replies:pauseLength:bodyReading:)``; a path without one gets `404`. So
    /// that a client's retry gets the same reply as its first try.
    ///
    /// ```swift
    /// let origin = try RawOrigin(routes: ["/bad": "HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n"])
    /// ```
    public convenience init(routes: [String: String], pauseLength: Duration = .milliseconds(300)) throws {
        try self.init(replies: [], routes: routes, pauseLength: pauseLength, bodyReading: .whole)
    }

    public convenience init(replies: [String], pauseLength: Duration = .milliseconds(300), bodyReading: BodyReading = .whole) throws {
        try self.init(replies: replies, routes: [:], pauseLength: pauseLength, bodyReading: bodyReading)
    }

    private let routes: [String: String]

    /// The request lines received for `path` so far.
    public func requestLines(for path: String) -> [String] { requestLines.filter { Self.path(ofRequestLine: $0) == path } }

    private static func path(ofRequestLine line: String) -> String {
        let target = line.split(separator: " ").dropFirst().first ?? ""
        return String(target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
    }

    private init(replies: [String], routes: [String: String], pauseLength: Duration, bodyReading: BodyReading) throws {
        self.replies = replies
        self.routes = routes
        self.pauseLength = pauseLength
        self.bodyReading = bodyReading
        let listener = LoopbackSocket.open()
        self.listener = listener
        guard let port = LoopbackSocket.bind(listener), listen(listener, 8) == 0 else {
            close(listener)
            throw StashError(.io, "cannot listen on 127.0.0.1")
        }
        self.port = port
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// Stops accepting; open connections end when their peer closes them.
    public func stop() { shutdown(listener, Int32(SHUT_RDWR)); close(listener) }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            LoopbackSocket.refuseBrokenPipeSignal(connection)
            Thread { [self] in serve(connection) }.start()
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var buffer = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            while let end = headEnd(buffer) {
                let head = String(decoding: buffer[..<end], as: UTF8.self)
                let bodyLength = head.split(separator: "\r\n").compactMap { line -> Int? in
                    let parts = line.split(separator: ":", maxSplits: 1)
                    guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
                    return Int(parts[1].trimmingCharacters(in: .whitespaces))
                }.first ?? 0
                let awaited = switch bodyReading {
                case .whole: bodyLength
                case .none: 0
                case .prefix(let count): min(count, bodyLength)
                }
                guard buffer.count >= end + 4 + awaited else { break }
                let taken = min(bodyLength, buffer.count - end - 4)
                let isChunked = head.lowercased().contains("transfer-encoding: chunked")
                buffer.removeFirst(end + 4 + taken)
                let index = seen.withLock { lines in
                    lines.append(head.components(separatedBy: "\r\n")[0])
                    return lines.count - 1
                }
                let reply = replies.isEmpty
                    ? routes[Self.path(ofRequestLine: head.components(separatedBy: "\r\n")[0])] ?? "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"
                    : replies[min(index, replies.count - 1)]
                for (position, part) in reply.replacingOccurrences(of: Self.hangUp, with: "").components(separatedBy: Self.pause).enumerated() {
                    if position > 0 { usleep(UInt32(pauseLength / .microseconds(1))) }
                    let bytes = Array(part.utf8)
                    _ = bytes.withUnsafeBytes { LoopbackSocket.send(connection, $0.baseAddress, $0.count) }
                }
                if reply.hasSuffix(Self.hangUp) { return }
                if case .whole = bodyReading { continue }
                // Answered early: the rest of the body is read and dropped (a chunked one up to
                // its last chunk, which a filler body holds nowhere else), then the next request.
                var remaining = bodyLength - taken
                while true {
                    if isChunked, let last = Self.range(of: Self.lastChunk, in: buffer) {
                        buffer.removeFirst(last.upperBound)
                        break
                    }
                    if !isChunked {
                        let dropped = min(remaining, buffer.count)
                        buffer.removeFirst(dropped)
                        remaining -= dropped
                        if remaining == 0 { break }
                    } else if buffer.count > Self.lastChunk.count {
                        buffer.removeFirst(buffer.count - Self.lastChunk.count)
                    }
                    let count = recv(connection, &chunk, chunk.count, 0)
                    guard count > 0 else { return }
                    buffer.append(contentsOf: chunk[..<count])
                }
            }
            let count = recv(connection, &chunk, chunk.count, 0)
            guard count > 0 else { return }
            buffer.append(contentsOf: chunk[..<count])
        }
    }

    private static let lastChunk = Array("\r\n0\r\n\r\n".utf8)

    private static func range(of needle: [UInt8], in bytes: [UInt8]) -> Range<Int>? {
        guard bytes.count >= needle.count else { return nil }
        for start in 0...(bytes.count - needle.count) where bytes[start..<(start + needle.count)].elementsEqual(needle) {
            return start..<(start + needle.count)
        }
        return nil
    }

    private func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }
}
