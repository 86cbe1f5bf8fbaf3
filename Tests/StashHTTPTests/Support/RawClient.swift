import Foundation
import StashCore
#if canImport(Glibc)
import Glibc
#endif

/// A client connection to 127.0.0.1 that sends bytes as the test writes them, so tests can
/// send a request head in pieces or keep a connection open without a request. Its blocking
/// socket calls run on a thread of their own, never on the cooperative pool the proxy
/// under test needs.
final class RawClient: @unchecked Sendable {
    private let socket: Int32

    /// Connects; every receive gives up after `patience` (the test then fails, never hangs).
    init(port: Int, patience: Int = 10) throws {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        var limit = timeval(tv_sec: patience, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else {
            close(socket)
            throw StashError(.io, "cannot connect to 127.0.0.1:\(port)")
        }
        self.socket = socket
    }

    deinit { close(socket) }

    /// Sends `text` as is; false when the connection no longer takes bytes.
    @discardableResult
    func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    /// Reads one response (head and `Content-Length` body, or the head alone for the answer
    /// to a `HEAD`); nil when the connection ends first.
    func response(toHead: Bool = false) async -> String? { await offThePool { self.blockingResponse(toHead: toHead) } }

    /// Whether the server closes the connection (end of stream or reset) before `patience`
    /// runs out, without sending anything.
    func isClosedByPeer() async -> Bool { await offThePool { self.blockingIsClosedByPeer() } }

    private func offThePool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: body()) }.start()
        }
    }

    /// Bytes read past the response last returned (the start of the next one).
    private var pending = [UInt8]()

    private func blockingResponse(toHead: Bool) -> String? {
        var buffer = pending
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let text = String(decoding: buffer, as: UTF8.self)
            if let end = text.range(of: "\r\n\r\n") {
                let length = toHead ? 0 : text[..<end.lowerBound].split(separator: "\r\n").compactMap { line -> Int? in
                    let parts = line.split(separator: ":", maxSplits: 1)
                    guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
                    return Int(parts[1].trimmingCharacters(in: .whitespaces))
                }.first ?? 0
                let whole = text.utf8.distance(from: text.startIndex, to: end.upperBound) + length
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

    private func blockingIsClosedByPeer() -> Bool {
        var byte: UInt8 = 0
        let count = recv(socket, &byte, 1, 0)
        return count == 0 || (count < 0 && errno == ECONNRESET)
    }
}
