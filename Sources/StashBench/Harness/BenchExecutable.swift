import Foundation

/// The running `stash-bench`, which starts itself again as a child for the work that needs a
/// process of its own (the disk scale probe, the proxy cases' floor server).
enum BenchExecutable {
    static var path: String {
        #if os(Linux)
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return path }
        #endif
        return Bundle.main.executablePath ?? CommandLine.arguments[0]
    }

    /// What a child run of this executable printed and how it ended.
    struct ChildRun {
        var output: String
        var status: Int32
        var killedBySignal: Bool

        /// The first line of the output that starts with `prefix`, split into numbers after
        /// it, when the child exited with 0.
        func figures(after prefix: String) -> [Double]? {
            guard status == 0, !killedBySignal,
                  let line = output.split(separator: "\n").first(where: { $0.hasPrefix(prefix + " ") }) else { return nil }
            return line.split(separator: " ").dropFirst().compactMap { Double($0) }
        }
    }

    /// Runs this executable again with `arguments` and `variable` set to `value` (which tells
    /// it what to do), pinned to `cpus` of ``CPUPinning`` when given, and waits for it.
    static func runChild(_ arguments: [String], variable: String, value: String, pinnedTo cpus: KeyPath<CPUPinning, String>? = nil) throws -> ChildRun {
        let executable = URL(fileURLWithPath: path)
        let (command, allArguments) = cpus.map { CPUPinning.command(executable, arguments, on: $0) } ?? (executable, arguments)
        let process = Process()
        process.executableURL = command
        process.arguments = allArguments
        var environment = ProcessInfo.processInfo.environment
        environment[variable] = value
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return ChildRun(
            output: String(decoding: data, as: UTF8.self), status: process.terminationStatus,
            killedBySignal: process.terminationReason == .uncaughtSignal
        )
    }
}
