public import Foundation

/// A real child process for crash and multi-process tests: start it, read the lines it
/// prints, kill it with SIGKILL, wait for it. Its standard error is read on a thread of its
/// own while it runs, so a child that writes more there than a pipe holds (64 KiB) never
/// blocks on it (and never hangs the test waiting for its standard output).
///
/// ```swift
/// let child = try ChildProcess.testHost("cache.write-loop", folder.path)
/// _ = child.readLine()              // "ready"
/// child.kill()
/// ```
public final class ChildProcess: @unchecked Sendable {
    private let process = Process()
    private let output = Pipe()
    private let errors = Pipe()
    private var buffer = Data()
    private let lock = NSLock()
    /// What the child wrote on stderr so far, guarded by `errorsDone`'s lock.
    private var errorBytes = Data()
    /// Signalled once stderr reached its end (the child and every process it started closed it).
    private let errorsDone = NSCondition()
    private var errorsEnded = false

    /// Starts `executable` with `arguments`.
    public init(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil) throws {
        process.executableURL = executable
        process.arguments = arguments
        if let environment {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        // Close-on-exec for the parent's ends: a child started meanwhile by another test
        // would otherwise inherit them, and this child's output would not end until that
        // one does (a reader waiting for the end then waits for an unrelated process).
        for pipe in [output, errors] {
            for fd in [pipe.fileHandleForReading.fileDescriptor, pipe.fileHandleForWriting.fileDescriptor] {
                _ = fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC)
            }
        }
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let reading = errors.fileHandleForReading
        Thread.detachNewThread { [self] in
            while true {
                let chunk = reading.availableData
                errorsDone.lock()
                if chunk.isEmpty {
                    errorsEnded = true
                    errorsDone.broadcast()
                    errorsDone.unlock()
                    return
                }
                errorBytes.append(chunk)
                errorsDone.unlock()
            }
        }
    }

    /// Starts the test host: `StashTestHost SCENARIO ARGS…`.
    public static func testHost(_ scenario: String, _ arguments: String..., environment: [String: String]? = nil) throws -> ChildProcess {
        try ChildProcess(BuiltProducts.testHost, [scenario] + arguments, environment: environment)
    }

    public var processIdentifier: Int32 { process.processIdentifier }

    /// The next line the child printed, or `nil` at the end of its output.
    public func readLine() -> String? {
        lock.lock()
        defer { lock.unlock() }
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                return line
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty {
                guard !buffer.isEmpty else { return nil }
                let line = String(decoding: buffer, as: UTF8.self)
                buffer.removeAll()
                return line
            }
            buffer.append(chunk)
        }
    }

    /// ``readLine()`` on a thread of its own, so that an async test waiting for the child
    /// does not hold one of the cooperative pool's few threads.
    public func nextLine() async -> String? {
        await offThePool { self.readLine() }
    }

    /// Every remaining line, until the child closes its output.
    public func readAllLines() -> [String] {
        var lines: [String] = []
        while let line = readLine() { lines.append(line) }
        return lines
    }

    /// ``readAllLines()`` on a thread of its own, off the cooperative pool.
    public func allLines() async -> [String] {
        await offThePool { self.readAllLines() }
    }

    /// ``wait()`` on a thread of its own, off the cooperative pool.
    public func exitStatus() async -> Int32 {
        await offThePool { self.wait() }
    }

    /// Sends SIGKILL: the child dies at once, with no chance to clean up.
    public func kill() {
        _ = Glibc_kill(process.processIdentifier, SIGKILL)
    }

    /// Waits for the child to end and returns its exit status (or the signal number + 128).
    @discardableResult
    public func wait() -> Int32 {
        process.waitUntilExit()
        if process.terminationReason == .uncaughtSignal { return 128 + process.terminationStatus }
        return process.terminationStatus
    }

    /// What the child printed on stderr: everything, once it ended (this waits for the end of
    /// its stderr, at most 10 seconds; a child still running answers what it wrote so far).
    public func standardError() -> String {
        errorsDone.lock()
        defer { errorsDone.unlock() }
        let deadline = Date(timeIntervalSinceNow: 10)
        while !errorsEnded, !process.isRunning, errorsDone.wait(until: deadline) {}
        return String(decoding: errorBytes, as: UTF8.self)
    }
}

@inline(__always)
private func Glibc_kill(_ pid: Int32, _ signal: Int32) -> Int32 {
    #if canImport(Glibc)
    return Glibc.kill(pid, signal)
    #else
    return Darwin.kill(pid, signal)
    #endif
}
