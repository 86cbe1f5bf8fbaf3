import Foundation
import StashTestSupport
import Testing

/// `stash http-proxy` runs one event loop per CPU it may run on: pinned to one CPU (as
/// `taskset` or systemd's `CPUAffinity=` do), it must not run two loops that the kernel then
/// time-slices (NIO alone counts the machine's CPUs, not the affinity mask).
struct HTTPProxyEventLoopTests {
    static let taskset = ["/usr/bin/taskset", "/bin/taskset"].first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test(.enabled(if: taskset != nil && ProcessInfo.processInfo.activeProcessorCount >= 2, "needs taskset and two CPUs"))
    func aProxyPinnedToOneCPURunsOneEventLoop() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.taskset!)
        process.arguments = [
            "-c", "0", BuiltProducts.executable("stash").path,
            "http-proxy", "--listen", "127.0.0.1:0", "--upstream", "http://127.0.0.1:9", "--disk-capacity", "0",
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["NIO_SINGLETON_GROUP_LOOP_COUNT"] = nil
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        // The banner comes once the server listens, its event loops running.
        var banner = ""
        while !banner.contains("listening on") {
            let data = output.fileHandleForReading.availableData
            guard !data.isEmpty else { break }
            banner += String(decoding: data, as: UTF8.self)
        }
        #expect(banner.contains("listening on"), "no banner: \(banner)")
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.processIdentifier)/task")
        let loops = tasks.filter { task in
            let name = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/task/\(task)/comm", encoding: .utf8)) ?? ""
            return name.hasPrefix("NIO-SGLTN")
        }
        #expect(loops.count == 1, "\(loops.count) event loop threads on one CPU")
    }
}
