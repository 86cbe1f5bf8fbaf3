import Foundation

/// MMKV (Tencent's memory-mapped key-value store) as a contender of `stash-bench
/// preferences`, through the driver in `Benchmarks/Peers/MMKV/driver.cpp`, which links
/// MMKV's C++ core built from MMKV's own sources by `Scripts/build-mmkv-peer.sh`.
///
/// The peer runs only when ``variable`` names the driver. The driver is one long-lived child
/// process: it reads the suite's workload (keys and values, written here to a file, untimed)
/// once, then runs one repetition of a case per request on its stdin and replies on its
/// stdout with the operations done and the nanoseconds they took, clocked around the
/// operations alone. Those replies become ``Measurement``s, so the harness interleaves MMKV
/// with the other contenders while the pipe's round trip stays out of the figures.
final class MMKVPeer {
    /// The environment variable that names the driver.
    static let variable = "STASH_BENCH_MMKV"
    /// The contender's name in the results.
    static let name = "MMKV"
    /// What the suite says when the variable is not set.
    static let howToEnable = "preferences: MMKV is not measured; to add it, build its driver from MMKV's sources "
        + "(Scripts/build-mmkv-peer.sh <mmkv-source-dir>) and set \(variable)=<driver>"

    private let process: Process
    private let requests: FileHandle
    private let replies: FileHandle
    private var pending: [UInt8] = []

    /// Starts the driver named by ``variable`` on `folder` (its MMKV root) with the given
    /// workload; `nil` when the variable is not set.
    init?(folder: URL, intKeys: [String], ints: [Int], stringKeys: [String], strings: [String]) throws {
        guard let path = ProcessInfo.processInfo.environment[Self.variable], !path.isEmpty else { return nil }
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw BenchError("\(Self.variable)=\(path) is not an executable (build it with Scripts/build-mmkv-peer.sh)")
        }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let workload = folder.appendingPathComponent("workload.txt")
        var text = "ints \(ints.count)\n"
        for (key, value) in zip(intKeys, ints) { text += "\(key) \(value)\n" }
        text += "strings \(strings.count)\n"
        for (key, value) in zip(stringKeys, strings) {
            guard !key.contains(" "), !key.contains("\n"), !value.contains("\n") else { throw BenchError("a workload line cannot hold \(key)") }
            text += "\(key) \(value)\n"
        }
        try Data(text.utf8).write(to: workload)
        let input = Pipe()
        let output = Pipe()
        process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = [folder.appendingPathComponent("mmkv").path, workload.path]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        requests = input.fileHandleForWriting
        replies = output.fileHandleForReading
    }

    /// Runs one request (`write-int 10000`, `open 10000`…) and returns what the driver
    /// measured.
    func run(_ request: String) throws -> Measurement {
        try requests.write(contentsOf: Data((request + "\n").utf8))
        let reply = try readLine()
        let words = reply.split(separator: " ")
        guard words.count == 2, let ops = Int(words[0]), let nanoseconds = UInt64(words[1]) else {
            throw BenchError("the MMKV driver answered \(request) with: \(reply)")
        }
        return Measurement(ops: ops, seconds: Double(nanoseconds) / 1e9)
    }

    /// A contender that sends `request` for every repetition; its CPU time is the driver's.
    func contender(_ request: String) -> AsyncContender {
        let driver = process.processIdentifier
        return AsyncContender(Self.name, measured: { try self.run(request) }).counting(.processes { [driver] })
    }

    /// Ends the driver (closing its stdin) and waits for it.
    func stop() {
        try? requests.close()
        process.waitUntilExit()
    }

    private func readLine() throws -> String {
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                return line
            }
            // `availableData`, not `read(upToCount:)`: on Linux the latter waits for the whole
            // count (or the end), so a one-line reply would never come back.
            let data = replies.availableData
            guard !data.isEmpty else {
                throw BenchError("the MMKV driver exited (status \(process.isRunning ? 0 : process.terminationStatus))")
            }
            pending.append(contentsOf: data)
        }
    }
}
