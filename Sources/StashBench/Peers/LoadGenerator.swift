import AsyncHTTPClient
import Foundation
import HTTPTypes
import StashHTTPAsyncClient

/// Loads an HTTP server with `connections` requests in flight for a while: with `wrk` when
/// it is installed (a separate process, so the client does not share the bench's threads,
/// pinned to the load generator's CPU by ``CPUPinning``), else with AsyncHTTPClient in this
/// process.
struct LoadGenerator {
    /// What one run did.
    struct Run {
        var requests: Int
        var errors: Int
        /// The 99th percentile latency in milliseconds, when the client reports it.
        var p99Milliseconds: Double?
        /// The median latency in milliseconds, when the client reports it.
        var p50Milliseconds: Double? = nil
        /// The 99.9th percentile latency in milliseconds (``OpenLoadGenerator``).
        var p999Milliseconds: Double? = nil
        /// How long the requests were sent for, as the client measured it (wrk's `in 2.00s`,
        /// without its start-up and exit); `nil` when it does not say.
        var seconds: Double? = nil
    }

    let wrk: URL? = findExecutable("wrk")
    var name: String { wrk == nil ? "AsyncHTTPClient" : "wrk" }

    /// Sends requests to `url` for `seconds` over `connections` connections.
    func run(url: String, connections: Int, seconds: Int, transport: AsyncHTTPClientTransport) async throws -> Run {
        try await run(urls: [url], connections: connections, seconds: seconds, transport: transport)
    }

    /// Loads every one of `urls` at once, `connections` connections each, and adds up the
    /// requests and errors (the p99 is the worst of the servers').
    func run(urls: [String], connections: Int, seconds: Int, transport: AsyncHTTPClientTransport) async throws -> Run {
        var runs: [Run] = []
        if let wrk {
            let started = try urls.map { try startWrk(wrk, url: $0, connections: connections, seconds: seconds) }
            for (process, pipe) in started {
                let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                runs.append(Self.parseWrk(output))
            }
        } else {
            runs = try await withThrowingTaskGroup(of: Run.self) { group in
                for url in urls { group.addTask { try await runBuiltIn(url: url, connections: connections, seconds: seconds, transport: transport) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        return runs.reduce(Run(requests: 0, errors: 0, p99Milliseconds: nil)) { total, run in
            Run(requests: total.requests + run.requests, errors: total.errors + run.errors,
                p99Milliseconds: [total.p99Milliseconds, run.p99Milliseconds].compactMap { $0 }.max(),
                p50Milliseconds: [total.p50Milliseconds, run.p50Milliseconds].compactMap { $0 }.max(),
                seconds: [total.seconds, run.seconds].compactMap { $0 }.max())
        }
    }

    private func startWrk(_ wrk: URL, url: String, connections: Int, seconds: Int) throws -> (Process, Pipe) {
        // One wrk thread per CPU it may use: all of them, or the one it is pinned to.
        let threads = CPUPinning.current == nil ? ProcessInfo.processInfo.activeProcessorCount : 1
        let (command, arguments) = CPUPinning.command(wrk, ["-t\(threads)", "-c\(connections)", "-d\(seconds)s", "--latency", url], on: \.load)
        let process = Process()
        process.executableURL = command
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        return (process, pipe)
    }

    /// Reads `N requests in T`, `Non-2xx or 3xx responses: N`, `Socket errors: …` and the
    /// `50%` and `99%` latency lines of wrk's output.
    static func parseWrk(_ output: String) -> Run {
        var run = Run(requests: 0, errors: 0, p99Milliseconds: nil)
        for line in output.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            let words = line.split(separator: " ")
            if line.contains("requests in"), let first = words.first, let count = Int(first) {
                run.requests = count
                // "N requests in 2.00s, 1.23MB read"
                if let index = words.firstIndex(of: "in"), words.index(after: index) < words.endIndex {
                    run.seconds = milliseconds(String(words[words.index(after: index)].trimmingCharacters(in: CharacterSet(charactersIn: ","))))
                        .map { $0 / 1000 }
                }
            }
            if line.hasPrefix("Non-2xx"), let last = words.last, let count = Int(last) { run.errors += count }
            if line.hasPrefix("Socket errors:") {
                for part in line.dropFirst("Socket errors:".count).split(separator: ",") {
                    if let count = Int(part.split(separator: " ").last ?? "") { run.errors += count }
                }
            }
            if line.hasPrefix("99%"), let value = words.last { run.p99Milliseconds = milliseconds(String(value)) }
            if line.hasPrefix("50%"), let value = words.last { run.p50Milliseconds = milliseconds(String(value)) }
        }
        return run
    }

    private static func milliseconds(_ text: String) -> Double? {
        for (unit, factor) in [("us", 0.001), ("ms", 1.0), ("s", 1000.0)] where text.hasSuffix(unit) {
            return Double(text.dropLast(unit.count)).map { $0 * factor }
        }
        return nil
    }

    private func runBuiltIn(url: String, connections: Int, seconds: Int, transport: AsyncHTTPClientTransport) async throws -> Run {
        guard let parsed = URL(string: url), let host = parsed.host, let port = parsed.port else { throw BenchError("bad URL \(url)") }
        let request = HTTPRequest(method: .get, scheme: "http", authority: "\(host):\(port)", path: parsed.path)
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds) * 1_000_000_000
        return try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for _ in 0..<connections {
                group.addTask {
                    var done = 0
                    var errors = 0
                    while DispatchTime.now().uptimeNanoseconds < deadline {
                        let (response, _) = try await transport.send(request, body: Data())
                        if response.status.code >= 400 { errors += 1 }
                        done += 1
                    }
                    return (done, errors)
                }
            }
            var run = Run(requests: 0, errors: 0, p99Milliseconds: nil)
            for try await (done, errors) in group {
                run.requests += done
                run.errors += errors
            }
            return run
        }
    }
}
