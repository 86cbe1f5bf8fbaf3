import Foundation
import StashToolSupport

/// nginx with `proxy_cache` in front of an origin, as the peer of the caching proxy: the
/// bench writes a throwaway configuration in a scratch folder, starts nginx on a free
/// loopback port and stops it afterwards.
///
/// Set up as nginx's own documentation recommends for speed: `sendfile`,
/// `open_file_cache` (so a hit does not open its cache file each time), the cache on tmpfs
/// (`/dev/shm`, when there is one), `reuseport`, and keepalive connections to the origin.
/// A second row turns `sendfile` off (``Role/proxy(cacheBytes:sendfile:)``): nginx's
/// documentation leaves it off by default, and for small bodies a copy can beat a
/// `sendfile` call. As the floor of the hit cases (``Role/floor(bodyBytes:)``), nginx
/// answers every request with a constant body (`return 200`, or a file on tmpfs for a body
/// longer than a configuration line holds), with no cache and no origin.
final class NginxPeer {
    /// What nginx is set up to do.
    enum Role {
        /// A caching proxy of at most `cacheBytes` on disk.
        case proxy(cacheBytes: Int, sendfile: Bool)
        /// A server answering every request with the same body of `bodyBytes`.
        case floor(bodyBytes: Int)
    }

    let port: Int
    private let server: PeerProcess
    /// The cache folder on tmpfs, removed when nginx stops.
    private let memoryFolder: URL?

    /// The nginx executable on `PATH` (or in `/usr/sbin`), or `nil` when absent.
    static var executable: URL? { findExecutable("nginx", extraFolders: ["/usr/sbin", "/usr/local/sbin"]) }

    /// The longest body the floor writes into its configuration (`return 200 "…"`): nginx
    /// reads a configuration in 4 KB buffers, and a longer token does not fit.
    static let longestInlineBody = 3000

    /// Starts nginx in `role` in front of `origin` (`host:port`), its files under `folder`:
    /// one worker per CPU the servers have (``CPUPinning``).
    init(executable: URL, origin: String, folder: URL, role: Role) throws {
        port = try freeLoopbackPort()
        memoryFolder = try MemoryFolder.make("nginx", port: port)
        let fast = memoryFolder ?? folder
        let workers = CPUPinning.current.map { "\($0.serverCPUs)" } ?? "auto"
        let location: String
        var sendfile = true
        switch role {
        case let .proxy(cacheBytes, withSendfile):
            sendfile = withSendfile
            location = """
                proxy_cache_path \(fast.path)/cache levels=1:2 keys_zone=bench:16m max_size=\(cacheBytes) inactive=1h;
                upstream origin { server \(origin); keepalive 32; }
                server {
                    listen 127.0.0.1:\(port) backlog=4096 reuseport;
                    keepalive_requests 1000000;
                    location / {
                        proxy_pass http://origin;
                        proxy_http_version 1.1;
                        proxy_set_header Connection "";
                        proxy_cache bench;
                        add_header Cache-Status $upstream_cache_status;
                    }
                }
            """
        case let .floor(bodyBytes):
            let body = String(repeating: "x", count: bodyBytes)
            let answer: String
            if bodyBytes <= Self.longestInlineBody {
                answer = "default_type application/octet-stream; return 200 \"\(body)\";"
            } else {
                try Data(body.utf8).write(to: fast.appendingPathComponent("body"))
                answer = "default_type application/octet-stream; root \(fast.path); try_files /body =404;"
            }
            location = """
                server {
                    listen 127.0.0.1:\(port) backlog=4096 reuseport;
                    keepalive_requests 1000000;
                    location / { \(answer) }
                }
            """
        }
        let config = """
        daemon off;
        master_process on;
        worker_processes \(workers);
        pid \(folder.path)/nginx.pid;
        error_log \(folder.path)/error.log error;
        events { worker_connections 4096; }
        http {
            access_log off;
            sendfile \(sendfile ? "on" : "off");
            open_file_cache max=10000 inactive=60s;
            open_file_cache_valid 60s;
            client_body_temp_path \(folder.path)/body;
            proxy_temp_path \(fast.path)/proxy;
            fastcgi_temp_path \(folder.path)/fastcgi;
            uwsgi_temp_path \(folder.path)/uwsgi;
            scgi_temp_path \(folder.path)/scgi;
        \(location)
        }
        """
        let configURL = folder.appendingPathComponent("nginx.conf")
        try config.write(to: configURL, atomically: true, encoding: .utf8)
        do {
            server = try PeerProcess(
                "nginx", executable: executable, arguments: ["-c", configURL.path, "-p", folder.path, "-e", "\(folder.path)/error.log"],
                port: port, folder: folder, stopSignal: SIGQUIT, seconds: 5
            )
        } catch {
            if let memoryFolder { try? FileManager.default.removeItem(at: memoryFolder) }
            throw error
        }
    }

    /// nginx caching `origin` with its files in `folder` (created), or `nil` with a note on
    /// `context`'s report when nginx is not installed.
    static func startIfInstalled(
        origin: String, folder: URL, role: Role, context: BenchContext, for name: String
    ) throws -> NginxPeer? {
        guard let executable else {
            context.reporter.note("\(name): nginx peer skipped (nginx is not installed)")
            return nil
        }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return try NginxPeer(executable: executable, origin: origin, folder: folder, role: role)
    }

    /// The largest peak resident memory of nginx's workers (the processes that proxy and
    /// cache), or `nil` where `/proc` does not say.
    var workerPeakBytes: Int? {
        PeakMemory.children(of: server.process.processIdentifier).compactMap { PeakResidentMemory.bytes(of: "\($0)") }.max()
    }

    /// Lowers the peaks of nginx's workers to their present resident memory; whether every
    /// worker's was (writing a worker's `clear_refs` fails when it runs as another user,
    /// `nobody`, and the bench is not privileged).
    func resetWorkerPeaks() -> Bool {
        let workers = PeakMemory.children(of: server.process.processIdentifier)
        return !workers.isEmpty && workers.map { PeakMemory.resetPeak(of: "\($0)") }.allSatisfy { $0 }
    }

    /// Its processes (``PeerProcess/processTree``).
    var processes: [Int32] { server.processTree }

    /// Stops nginx (SIGQUIT: graceful) and waits for it.
    func stop() {
        server.stop()
        if let memoryFolder { try? FileManager.default.removeItem(at: memoryFolder) }
    }
}

/// A failure of the bench's own setup.
struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// An executable named `name` on `PATH` or in `extraFolders`.
func findExecutable(_ name: String, extraFolders: [String] = []) -> URL? {
    let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init) + extraFolders
    for folder in folders {
        let candidate = URL(fileURLWithPath: folder).appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    return nil
}

/// A loopback port free right now (bound to 0, read back, released).
func freeLoopbackPort() throws -> Int {
    guard let port = LoopbackSocket.freePort() else { throw BenchError("cannot bind a loopback port") }
    return port
}

/// Whether something accepts connections on 127.0.0.1:`port` within `seconds`.
func waitUntilListening(port: Int, seconds: Double) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        let fd = LoopbackSocket.open()
        guard fd >= 0 else { return false }
        let connected = LoopbackSocket.connect(fd, port: port)
        close(fd)
        if connected { return true }
        usleep(20_000)
    }
    return false
}
