import Foundation
import StashToolSupport

/// The `floor` of the proxy-hit cases: a ``ConstantReplyServer`` answering every request with
/// the bytes of a hit of the case's body (a head as short as a cache's, then the body), in a
/// process of its own (this executable again, told by ``variable``), pinned like every server.
/// A server on one CPU can hardly answer the same client faster, so its throughput is about
/// the most the load generator and the machine let a server show, and its latency about the
/// least: a proxy near it is bounded by the client, not by its own work.
final class FloorPeer {
    /// The environment variable that makes this executable serve: `port|body bytes`.
    static let variable = "STASH_BENCH_CONSTANT_REPLY"

    let port: Int
    private let server: PeerProcess

    /// Starts the floor for bodies of `bodyBytes`, its log under `folder`.
    init(bodyBytes: Int, folder: URL) throws {
        port = try freeLoopbackPort()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        server = try PeerProcess(
            "floor-\(bodyBytes)", executable: URL(fileURLWithPath: BenchExecutable.path), arguments: [], port: port, folder: folder,
            environment: [Self.variable: "\(port)|\(bodyBytes)"]
        )
    }

    /// Its process (``PeerProcess/processTree``), paused while another server is measured.
    var processes: [Int32] { server.processTree }

    func stop() { server.stop() }

    /// A hit's bytes: the status line, the fields a cache's hit carries, and `bodyBytes` of `a`.
    static func reply(bodyBytes: Int) -> [UInt8] {
        let head = "HTTP/1.1 200 OK\r\ncontent-type: application/octet-stream\r\ncache-control: max-age=3600\r\nage: 0\r\ncontent-length: \(bodyBytes)\r\n\r\n"
        return Array(head.utf8) + [UInt8](repeating: 0x61, count: bodyBytes)
    }

    /// When ``variable`` is set, serves until the process is ended and never returns;
    /// `false` otherwise.
    static func serveIfAsked() throws -> Bool {
        guard let spec = ProcessInfo.processInfo.environment[variable] else { return false }
        let parts = spec.split(separator: "|").compactMap { Int($0) }
        guard parts.count == 2, parts[1] >= 0 else { throw BenchError("bad \(variable): \(spec)") }
        let server = try ConstantReplyServer(reply: reply(bodyBytes: parts[1]), port: parts[0])
        while true {
            sleep(3_600)
            withExtendedLifetime(server) {}
        }
    }
}
