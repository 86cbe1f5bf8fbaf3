import Foundation
import StashCore
#if canImport(Glibc)
import Glibc
#endif

/// One HTTP/1.1 exchange with a server on 127.0.0.1 over a plain socket, with the `Host` the
/// test chooses: proxies behind a load balancer all see the site's public name, and their
/// cache keys are made of it. Blocking calls run on a thread of their own, off the
/// cooperative pool; every receive gives up after 30 seconds.
enum LoopbackRequest {
    struct Answer: Sendable {
        var status: Int
        var fields: [String: String]
        var body: String
    }

    static func send(port: Int, method: String, path: String, host: String) async throws -> Answer {
        let raw = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<String, any Error>) in
            Thread {
                continuation.resume(with: Result { try exchange(port: port, "\(method) \(path) HTTP/1.1\r\nHost: \(host)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n") })
            }.start()
        }
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

    /// Sends `request` and reads until the server closes the connection.
    private static func exchange(port: Int, _ request: String) throws -> String {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        var limit = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else { throw StashError(.io, "cannot connect to 127.0.0.1:\(port)") }
        let bytes = Array(request.utf8)
        guard bytes.withUnsafeBytes({ Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count else {
            throw StashError(.io, "cannot send to 127.0.0.1:\(port)")
        }
        var received = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(socket, &chunk, chunk.count, 0)
            if count == 0 { break }
            guard count > 0 else { throw StashError(.io, "no answer from 127.0.0.1:\(port) within 30 s", errno: errno) }
            received.append(contentsOf: chunk[..<count])
        }
        return String(decoding: received, as: UTF8.self)
    }
}
