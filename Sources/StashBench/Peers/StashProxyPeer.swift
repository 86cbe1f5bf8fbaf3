import Foundation

/// Stash's caching proxy as users run it: `stash http-proxy`, the executable built beside
/// `stash-bench` (`swift build -c release` builds both), in a process of its own on a free
/// loopback port, pinned like every server (``CPUPinning``), its cache folder on tmpfs
/// like nginx's (``MemoryFolder``). Default settings (a memory cache in front of a disk
/// cache), or another disk capacity (0: memory only).
final class StashProxyPeer {
    let port: Int
    private let server: PeerProcess
    /// The cache's root on tmpfs, removed when the proxy stops.
    private let memoryFolder: URL?

    /// `stash` beside the running `stash-bench`, or `nil` when it was not built.
    static var executable: URL? {
        let bench = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let stash = bench.deletingLastPathComponent().appendingPathComponent("stash")
        return FileManager.default.isExecutableFile(atPath: stash.path) ? stash : nil
    }

    /// Starts `stash http-proxy` in front of `origin` (`host:port`), its folders under
    /// `folder`, named `name`; `diskCapacity` is its `--disk-capacity` (0: memory only), by
    /// default the command's.
    init(_ name: String, executable: URL, origin: String, folder: URL, diskCapacity: Int? = nil) throws {
        port = try freeLoopbackPort()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        memoryFolder = try MemoryFolder.make("stash", port: port)
        var arguments = [
            "http-proxy", "--listen", "127.0.0.1:\(port)", "--upstream", "http://\(origin)",
            "--root", (memoryFolder ?? folder).appendingPathComponent("root").path,
        ]
        if let diskCapacity { arguments += ["--disk-capacity", "\(diskCapacity)"] }
        server = try PeerProcess(name, executable: executable, arguments: arguments, port: port, folder: folder)
    }

    /// The proxy's process.
    var processIdentifier: Int32 { server.process.processIdentifier }

    /// Its processes (``PeerProcess/processTree``).
    var processes: [Int32] { server.processTree }

    func stop() {
        server.stop()
        if let memoryFolder { try? FileManager.default.removeItem(at: memoryFolder) }
    }
}
