import Foundation
import StashCore
import StashToolSupport

/// A client connection to 127.0.0.1 over a plain socket that sends bytes as the test writes
/// them, so tests can send a request head in pieces, keep a connection open without a
/// request, or choose a `Host` that is not the server's address (proxies behind a load
/// balancer all see the site's public name). Its blocking socket calls run on a thread of
/// their own, never on the cooperative pool the server under test needs.
///
/// One task uses a client at a time: it keeps the bytes read past a response for the next
/// one without a lock (it is `@unchecked Sendable` only so that its calls can hop to that
/// thread). Give each concurrent task a client of its own.
///
/// ```swift
/// let client = try RawClient(port: port)
/// client.send("GET /a HTTP/1.1\r\nHo")          // half a head…
/// client.send("st: example.com\r\n\r\n")       // …then the rest
/// let response = await client.response()       // "HTTP/1.1 200 OK\r\n…"
/// ```
public final class RawClient: @unchecked Sendable {
    /// A response as ``exchange(port:method:path:host:)`` reads it.
    public struct Answer: Sendable {
        /// The status code of the status line (`200`).
        public var status: Int
        /// Header fields by lowercased name.
        public var fields: [String: String]
        /// Everything after the head until the server closed the connection, as UTF-8.
        public var body: String
    }

    private let socket: Int32

    /// Connects; every receive and send gives up after `patience` seconds (the test then
    /// fails, never hangs). `receiveBuffer` shrinks the socket's receive buffer (`SO_RCVBUF`), so that a
    /// client that stops reading holds the server back after a few kilobytes.
    public init(port: Int, patience: Int = 10, receiveBuffer: Int32? = nil) throws {
        let socket = LoopbackSocket.open()
        var limit = timeval(tv_sec: patience, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        if var receiveBuffer { setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &receiveBuffer, socklen_t(MemoryLayout<Int32>.size)) }
        guard LoopbackSocket.connect(socket, port: port) else {
            close(socket)
            throw StashError(.io, "cannot connect to 127.0.0.1:\(port)")
        }
        self.socket = socket
    }

    deinit { close(socket) }

    /// Sends `text` as is; false when the connection no longer takes bytes.
    @discardableResult
    public func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { LoopbackSocket.send(socket, $0.baseAddress, $0.count) } == bytes.count
    }

    /// ``send(_:)`` on a thread of its own: for bytes the server may stop reading part way
    /// (a head or body it refuses), so that a blocked send holds no thread of the pool.

    /// Sends `count` bytes of filler (a request body's worth) off the cooperative pool, as
    /// they are or in chunks of 64 KiB with the last chunk after them (`chunked`), and
    /// returns how many bytes of filler the connection took before it stopped taking them.
    /// It may run beside one task reading a response: sending and receiving do not share
    /// state.
    public func send(filler count: Int, chunked: Bool = false) async -> Int {
        await offThePool { self.blockingSend(filler: count, chunked: chunked) }
    }

    /// ``send(filler:chunked:)`` on the calling thread: the bytes sent before the server
    /// stopped taking them.
    public func blockingSend(filler count: Int, chunked: Bool = false) -> Int {
        let piece = [UInt8](repeating: UInt8(ascii: "a"), count: 64 << 10)
        var sent = 0
        func put(_ bytes: [UInt8]) -> Bool {
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { LoopbackSocket.send(self.socket, $0.baseAddress, $0.count) }
                guard written > 0 else { return false }
                offset += written
            }
            return true
        }
        while sent < count {
            let size = min(piece.count, count - sent)
            if chunked, !put(Array("\(String(size, radix: 16))\r\n".utf8)) { return sent }
            guard put(Array(piece[..<size])) else { return sent }
            if chunked, !put(Array("\r\n".utf8)) { return sent }
            sent += size
        }
        if chunked { _ = put(Array("0\r\n\r\n".utf8)) }
        return sent
    }

    /// Everything the server sends until it closes the connection (or `patience` runs out),
    /// as UTF-8.
    public func readToEnd() async -> String { await offThePool { self.blockingReadToEnd() } }

    /// Ends the connection at once, both ways, as a client that gives up does.
    public func hangUp() { shutdown(socket, Int32(SHUT_RDWR)) }

    /// Reads one response (head and `Content-Length` body, or the head alone for the answer
    /// to a `HEAD`); nil when the connection ends first.
    public func response(toHead: Bool = false) async -> String? { await offThePool { self.blockingResponse(toHead: toHead) } }

    /// Whether the server closes the connection (end of stream or reset) before `patience`
    /// runs out, without sending anything.
    public func isClosedByPeer() async -> Bool { await offThePool { self.blockingIsClosedByPeer() } }

    /// Waits, without reading them, until at least `count` bytes have arrived and wait to be
    /// read; false when the connection ends or `patience` runs out first.
    ///
    /// ```swift
    /// let stuck = try RawClient(port: port, receiveBuffer: 4096)
    /// stuck.send("GET /big HTTP/1.1\r\nHost: a\r\n\r\n")
    /// #expect(await stuck.waitForUnreadBytes(2048)) // the server is sending
    /// ```
    public func waitForUnreadBytes(_ count: Int) async -> Bool { await offThePool { self.blockingWaitForUnreadBytes(count) } }

    /// One HTTP/1.1 exchange on a connection of its own: `method path` for `host`, with
    /// `Connection: close`, read until the server closes (every receive gives up after 30 s).
    ///
    /// ```swift
    /// let answer = try await RawClient.exchange(port: port, method: "GET", path: "/a", host: "www.example.com")
    /// #expect(answer.status == 200 && answer.fields["cache-status"] == "stash; hit")
    /// ```
    public static func exchange(port: Int, method: String, path: String, host: String) async throws -> Answer {
        let client = try RawClient(port: port, patience: 30)
        guard client.send("\(method) \(path) HTTP/1.1\r\nHost: \(host)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n") else {
            throw StashError(.io, "cannot send to 127.0.0.1:\(port)")
        }
        let raw = await offThePool { client.blockingReadToEnd() }
        guard let end = raw.range(of: "\r\n\r\n") else { throw StashError(.io, "no response head from 127.0.0.1:\(port): \(raw)") }
        let lines = raw[..<end.lowerBound].components(separatedBy: "\r\n")
        guard let statusLine = lines.first, let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "") else {
            throw StashError(.io, "no status line from 127.0.0.1:\(port): \(raw)")
        }
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2 { fields[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces) }
        }
        return Answer(status: status, fields: fields, body: String(raw[end.upperBound...]))
    }

    /// Bytes read past the response last returned (the start of the next one).
    private var pending = [UInt8]()

    private func blockingResponse(toHead: Bool) -> String? {
        var buffer = pending
        var chunk = [UInt8](repeating: 0, count: 4096)
        let blankLine: [UInt8] = Array("\r\n\r\n".utf8)
        while true {
            // Counted in bytes, so that a body that is not UTF-8 still ends where it should.
            if let headEnd = buffer.indices.dropLast(3).first(where: { buffer[$0..<$0 + 4].elementsEqual(blankLine) }) {
                let head = String(decoding: buffer[..<headEnd], as: UTF8.self)
                let length = toHead ? 0 : head.split(separator: "\r\n").compactMap { line -> Int? in
                    let parts = line.split(separator: ":", maxSplits: 1)
                    guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
                    return Int(parts[1].trimmingCharacters(in: .whitespaces))
                }.first ?? 0
                let whole = headEnd + 4 + length
                if buffer.count >= whole {
                    pending = Array(buffer[whole...])
                    return String(decoding: buffer[..<whole], as: UTF8.self)
                }
            }
            let count = recv(socket, &chunk, chunk.count, 0)
            guard count > 0 else { return nil }
            buffer.append(contentsOf: chunk[..<count])
        }
    }

    /// Everything the server sends until it closes the connection (or `patience` runs out).
    private func blockingReadToEnd() -> String {
        var received = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(socket, &chunk, chunk.count, 0)
            guard count > 0 else { break }
            received.append(contentsOf: chunk[..<count])
        }
        return String(decoding: received, as: UTF8.self)
    }

    private func blockingWaitForUnreadBytes(_ count: Int) -> Bool {
        var peeked = [UInt8](repeating: 0, count: count)
        // Each peek blocks until something arrived (at most `patience`); a short one means
        // more is on its way.
        for _ in 0..<1_000 {
            let waiting = recv(socket, &peeked, count, Int32(MSG_PEEK))
            if waiting >= count { return true }
            if waiting <= 0 { return false }
            usleep(10_000)
        }
        return false
    }

    private func blockingIsClosedByPeer() -> Bool {
        var byte: UInt8 = 0
        let count = recv(socket, &byte, 1, 0)
        return count == 0 || (count < 0 && errno == ECONNRESET)
    }
}
