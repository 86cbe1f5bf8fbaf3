import Foundation

/// A server the bench runs as a child process on a loopback port (Stash's proxy, nginx,
/// Varnish), pinned to the servers' CPUs (``CPUPinning``): started, awaited until it
/// listens, and stopped with a signal, its output kept in a log file of its folder for a
/// failure's message.
///
/// A server that daemonizes (Varnish: run in the foreground as a child of Foundation's
/// `Process`, it stalls `Process`'s reaping of every other child, wrk included) writes its
/// process identifier to `pidFile`: the launcher's exit is awaited, and the signal goes to
/// the daemon.
final class PeerProcess {
    let name: String
    let port: Int
    let process: Process
    private let log: URL
    /// The log's handle, the child's output; kept open while the child runs (the parent's
    /// copy belongs to `Process` until then).
    private let output: FileHandle
    private let stopSignal: Int32
    private let pidFile: URL?

    /// Starts `executable` with `arguments`, which make it listen on 127.0.0.1:`port`; throws
    /// with the end of its output when it does not listen within `seconds`. `environment`
    /// adds to (or replaces) the variables it inherits.
    init(
        _ name: String, executable: URL, arguments: [String], port: Int, folder: URL, stopSignal: Int32 = SIGTERM,
        pidFile: URL? = nil, seconds: Double = 10, environment: [String: String] = [:]
    ) throws {
        self.name = name
        self.port = port
        self.stopSignal = stopSignal
        self.pidFile = pidFile
        log = folder.appendingPathComponent("\(name).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        output = try FileHandle(forWritingTo: log)
        let (command, commandArguments) = CPUPinning.command(executable, arguments, on: \.servers)
        process = Process()
        process.executableURL = command
        process.arguments = commandArguments
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        process.standardOutput = output
        process.standardError = output
        try process.run()
        if pidFile != nil { process.waitUntilExit() }
        guard waitUntilListening(port: port, seconds: seconds), pidFile != nil || process.isRunning else {
            stop()
            throw BenchError("\(name) did not start listening on 127.0.0.1:\(port): \(lastLines())")
        }
    }

    /// The server's process (the daemon, for one that daemonizes) and every process under
    /// it (nginx's workers, Varnish's child), or none once it is gone.
    var processTree: [Int32] {
        var root = process.isRunning ? process.processIdentifier : nil
        if let pidFile, let text = try? String(contentsOf: pidFile, encoding: .utf8) {
            root = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        guard let root, kill(root, 0) == 0 else { return [] }
        var tree = [root]
        var index = 0
        while index < tree.count {
            tree += PeakMemory.children(of: tree[index])
            index += 1
        }
        return tree
    }

    /// Stops the server with its signal and waits for it.
    func stop() {
        if let pidFile {
            if let text = try? String(contentsOf: pidFile, encoding: .utf8), let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
                kill(pid, stopSignal)
                // Not our child: gone when a signal can no longer reach it (at most 10 s).
                for _ in 0..<1_000 where kill(pid, 0) == 0 { usleep(10_000) }
            }
        } else if process.isRunning {
            kill(process.processIdentifier, stopSignal)
            process.waitUntilExit()
        }
        try? output.close()
    }

    private func lastLines() -> String {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(5).joined(separator: " | ")
    }
}
