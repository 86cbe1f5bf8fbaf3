import Foundation

/// The built `stash` command, run as a user would: arguments, optional standard input,
/// environment overrides; returns its exit status and what it printed.
///
/// ```swift
/// let result = try StashExecutable.run(["vault", "get", "app", "token"], input: "")
/// #expect(result.status == 0)
/// ```
public enum StashExecutable {
    public struct Result: Sendable {
        public var status: Int32
        public var output: String
        public var errors: String
    }

    /// Runs `stash ARGUMENTS…`. Without `input`, standard input is empty (`/dev/null`).
    public static func run(_ arguments: [String], input: String? = nil, environment: [String: String?] = [:]) throws -> Result {
        let process = Process()
        process.executableURL = BuiltProducts.executable("stash")
        process.arguments = arguments
        if !environment.isEmpty {
            var merged = ProcessInfo.processInfo.environment
            for (name, value) in environment { merged[name] = value }
            process.environment = merged
        }
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = input == nil ? FileHandle.nullDevice : stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        if let input {
            stdin.fileHandleForWriting.write(Data(input.utf8))
            try stdin.fileHandleForWriting.close()
        }
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let errors = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            output: String(decoding: output, as: UTF8.self),
            errors: String(decoding: errors, as: UTF8.self)
        )
    }
}
