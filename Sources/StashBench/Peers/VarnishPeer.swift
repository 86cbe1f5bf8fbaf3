import Foundation

/// Varnish in front of an origin, the memory-tier peer of the caching proxy: `varnishd` as a
/// daemon on a free loopback port, its objects in memory (`-s malloc`, as Varnish's
/// documentation recommends when the cache fits in memory), its default VCL (which caches
/// what `Cache-Control` allows), its worker threads made before the run for every connection
/// the largest case opens, and otherwise its defaults; pinned like every server
/// (``CPUPinning``).
///
/// Threads: Varnish serves each request on a worker thread of its pools (two by default,
/// which its book advises keeping) and starts `thread_pool_min` threads per pool, 100 by
/// default, growing the pools under load; its book's advice is to set `thread_pool_min` to
/// what the expected load needs, so that no thread is created while requests wait
/// (docs.varnish-software.com/book/operations/tuning-varnish, "Threading settings"). The
/// largest case opens 500 connections: 300 threads per pool cover them with room for the
/// fetches from the origin.
final class VarnishPeer {
    let port: Int
    private let server: PeerProcess

    /// The `varnishd` executable, or `nil` when Varnish is not installed.
    static var executable: URL? { findExecutable("varnishd", extraFolders: ["/usr/sbin", "/usr/local/sbin"]) }

    /// The worker threads each of Varnish's two pools starts with.
    static let threadsPerPool = 300

    /// Starts Varnish caching `origin` (`host:port`), its working folder under `folder`.
    init(executable: URL, origin: String, folder: URL) throws {
        port = try freeLoopbackPort()
        // Readable by all: Varnish's worker runs as its own user and reaches its folder through it.
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
        server = try PeerProcess(
            "varnish", executable: executable,
            arguments: [
                "-a", "127.0.0.1:\(port)", "-b", origin, "-s", "malloc,256m", "-n", folder.appendingPathComponent("work").path,
                "-P", folder.appendingPathComponent("varnishd.pid").path,
                "-p", "thread_pool_min=\(Self.threadsPerPool)",
            ],
            // SIGKILL: the bench ignores SIGTERM (its servers' graceful shutdown listens for it),
            // a child inherits that, and Varnish's manager installs no handler of its own; its
            // worker exits when the manager is gone.
            port: port, folder: folder, stopSignal: SIGKILL, pidFile: folder.appendingPathComponent("varnishd.pid"), seconds: 15
        )
    }

    /// Varnish caching `origin` with its files in `folder` (created), or `nil` with a note on
    /// `context`'s report when Varnish is not installed.
    static func startIfInstalled(origin: String, folder: URL, context: BenchContext, for name: String) throws -> VarnishPeer? {
        guard let executable else {
            context.reporter.note("\(name): Varnish peer skipped (varnishd is not installed)")
            return nil
        }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return try VarnishPeer(executable: executable, origin: origin, folder: folder)
    }

    /// Its processes (``PeerProcess/processTree``).
    var processes: [Int32] { server.processTree }

    func stop() { server.stop() }
}
