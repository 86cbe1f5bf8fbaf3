import Foundation
#if canImport(Glibc)
import Glibc
#endif
import StashCore
import StashPostgres
import StashTestSupport
import Testing

/// PostgreSQL stopped in the middle of a run, then started again: on a server of its own
/// (started with `Scripts/postgres.sh` in a temporary folder), so other tests keep theirs.
@Suite(.enabled(if: TestPostgres.enabled, TestPostgres.skipReason), .timeLimit(.minutes(3)))
struct SharedCacheFaultTests {
    /// The caches of a fault test: `lenient` and `strict` with a short timeout, `patient`
    /// with the tests' long one.
    struct Caches: Sendable {
        let lenient, strict, patient: SharedCache

        /// Whether `strict` reads "kept" again within 30 seconds.
        func recover() async throws -> Bool {
            for _ in 0..<120 {
                if (try? await strict.value(forKey: "kept")) == Data("before".utf8) { return true }
                try await Task.sleep(for: .milliseconds(250))
            }
            return false
        }
    }

    /// Runs `body` with a server of its own (its folder) and caches on it; the table is
    /// migrated and holds "kept" = "before".
    private func withOwnServer(
        _ name: String, timeout: Duration, _ body: @Sendable (_ server: String, _ caches: Caches) async throws -> Void
    ) async throws {
        let folder = TemporaryFolder(name)
        let server = folder.url.appendingPathComponent("server").path
        let url = try PostgresScript.run("start", server)
        defer { _ = try? PostgresScript.run("stop", server) }
        try await TestPostgres.withSchema(url: url) { _, _, client in
            var configuration = SharedCache.Configuration()
            configuration.logger = TestPostgres.quiet
            configuration.timeout = timeout
            let lenient = SharedCache(client: client, configuration: configuration)
            configuration.failurePolicy = .strict
            let strict = SharedCache(client: client, configuration: configuration)
            let patient = SharedCache(client: client, configuration: TestPostgres.configuration)
            try await patient.migrate()
            try await patient.set(Data("before".utf8), forKey: "kept")
            try await body(server, Caches(lenient: lenient, strict: strict, patient: patient))
        }
    }

    @Test func aStoppedServerMeansMissesAndDroppedWritesThenTheCacheRecovers() async throws {
        try await withOwnServer("postgres-fault", timeout: .milliseconds(500)) { server, caches in
            let (lenient, strict, patient) = (caches.lenient, caches.strict, caches.patient)
            #expect(try await patient.value(forKey: "kept") == Data("before".utf8))

            _ = try PostgresScript.run("pause", server)

            // Lenient: a miss and a dropped write, within the timeout (plus slack), no throw.
            let started = ContinuousClock.now
            #expect(try await lenient.value(forKey: "kept") == nil)
            try await lenient.set(Data("lost".utf8), forKey: "during")
            #expect(try await lenient.values(forKeys: ["kept", "during"]) == [:])
            try await lenient.removeValue(forKey: "kept")
            #expect(ContinuousClock.now - started < .seconds(4 * 2), "lenient operations hung past their timeouts")
            let stats = lenient.statistics
            #expect(stats.errors == 4)
            #expect(stats.droppedWrites == 2)
            #expect(stats.misses == 3)

            // Strict: typed errors.
            for operation in ["read", "write", "increment"] {
                let attempt = ContinuousClock.now
                do {
                    switch operation {
                    case "read": _ = try await strict.value(forKey: "kept")
                    case "write": try await strict.set(Data("lost".utf8), forKey: "during")
                    default: try await strict.increment("counter")
                    }
                    Issue.record("a strict \(operation) succeeded with the server stopped")
                } catch let error as StashError where error.code == .unavailable {
                    if operation == "increment" { #expect(error.key == "counter", "the increment's error lost its key") }
                }
                #expect(ContinuousClock.now - attempt < .seconds(2), "a strict \(operation) hung past its timeout")
            }
            #expect(await lenient.removeExpired() == 0)

            _ = try PostgresScript.run("start", server)

            // The same cache objects work again once the pool reconnects.
            #expect(try await caches.recover(), "the cache did not work again after the server restarted")
            try await patient.set(Data("after".utf8), forKey: "during")
            #expect(try await patient.value(forKey: "during") == Data("after".utf8))
        }
    }
}

extension SharedCacheFaultTests {
    /// A server that stops answering without closing its connections (its processes
    /// stopped with SIGSTOP, as in a network partition): queries already sent never return
    /// and ignore cancellation, so only the deadline watcher can answer the callers.
    @Test(.enabled(if: PostgresProcesses.canList, "needs /proc to find the server's backends"))
    func aFrozenServerMeansAnswersWithinTheTimeoutThenTheCacheRecovers() async throws {
        try await withOwnServer("postgres-frozen", timeout: .milliseconds(300)) { server, caches in
            let (lenient, strict) = (caches.lenient, caches.strict)

            let processes = try PostgresProcesses(dataDirectory: server + "/data")
            processes.signal(SIGSTOP)
            var resumed = false
            defer { if !resumed { processes.signal(SIGCONT) } }

            // Eight callers at once, so that some wait for a connection and some for a reply.
            let started = ContinuousClock.now
            let answers = try await withThrowingTaskGroup(of: Data?.self) { group in
                for _ in 0..<8 { group.addTask { try await lenient.value(forKey: "kept") } }
                group.addTask { try await lenient.set(Data("lost".utf8), forKey: "during"); return nil }
                return try await group.reduce(into: [Data?]()) { $0.append($1) }
            }
            #expect(answers.allSatisfy { $0 == nil })
            // Nine callers, 300 ms each at most, some queued for a connection: well under 6 s
            // even on a machine busy with other tests; a caller left to the frozen server
            // would wait for ever.
            #expect(ContinuousClock.now - started < .seconds(6), "callers waited on a frozen server past their timeout")
            #expect(lenient.statistics.errors == 9)
            let attempt = ContinuousClock.now
            await #expect(throws: StashError.self) { try await strict.set(Data("lost".utf8), forKey: "during") }
            // 300 ms is the timeout; the bound leaves room for a machine busy with other tests.
            #expect(ContinuousClock.now - attempt < .seconds(5), "a strict write hung past its timeout")

            processes.signal(SIGCONT)
            resumed = true
            #expect(try await caches.recover(), "the cache did not work again after the server resumed")
        }
    }
}

/// The processes of one PostgreSQL server: its postmaster and the backends it started.
struct PostgresProcesses {
    /// Whether this system lists processes in /proc (Linux).
    static let canList = FileManager.default.fileExists(atPath: "/proc/self/stat")

    let identifiers: [pid_t]

    init(dataDirectory: String) throws {
        let pidFile = try String(contentsOfFile: dataDirectory + "/postmaster.pid", encoding: .utf8)
        guard let first = pidFile.split(separator: "\n").first, let postmaster = pid_t(first) else {
            throw StashError(.corruptFile, "no postmaster pid in \(dataDirectory)/postmaster.pid")
        }
        var children = [pid_t]()
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, pid_t(fields[1]) == postmaster { children.append(pid) }
        }
        identifiers = [postmaster] + children
    }

    func signal(_ signal: Int32) {
        for pid in identifiers { kill(pid, signal) }
    }
}

/// `Scripts/postgres.sh` of this checkout.
enum PostgresScript {
    static let path = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Scripts/postgres.sh").path

    /// Runs `postgres.sh COMMAND DIR` and answers what it printed. Spawned and reaped with
    /// posix_spawn/waitpid: the server it starts outlives it.
    @discardableResult
    static func run(_ command: String, _ directory: String) throws -> String {
        let output = directory + ".\(command).out"
        defer { unlink(output) }
        let arguments = ["/bin/bash", "-c", "bash \"$0\" \"$1\" \"$2\" >\"$3\" 2>&1 </dev/null", path, command, directory, output]
        var pointers = arguments.map { strdup($0) }
        defer { pointers.forEach { free($0) } }
        pointers.append(nil)
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/bash", nil, nil, &pointers, environ)
        guard spawned == 0 else { throw StashError(.io, "could not start postgres.sh", errno: spawned) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let printed = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        guard status == 0 else { throw StashError(.io, "postgres.sh \(command) failed: \(printed)") }
        return printed.split(separator: "\n").last.map(String.init) ?? ""
    }
}
