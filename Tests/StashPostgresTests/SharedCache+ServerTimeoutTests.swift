import Foundation
import PostgresNIO
import StashCore
import StashPostgres
import Testing

/// A write that times out must not commit later over a newer value, and must not stay on
/// the server: another connection holds the row's lock while the cache writes, so the write
/// waits; after its timeout the server shows no query of the cache's, and once the other
/// transaction commits a newer value, that value stays.
@Suite(.enabled(if: TestPostgres.enabled, TestPostgres.skipReason), .timeLimit(.minutes(2)))
struct SharedCacheServerTimeoutTests {
    /// The server's own timeouts (`statement_timeout` and `lock_timeout`, shorter than the
    /// operation's by a margin: 5.4 s of 6 s) end the waiting write before the client gives
    /// up, so it fails as not applied (`57014` or `55P03`, `.unavailable`). The margin is for
    /// the statement's way to the server and the answer's way back; 0.6 s here, which a
    /// machine running the whole suite on two cores keeps (0.2 s did not).
    @Test func aWriteBlockedByALockIsEndedByTheServersTimeout() async throws {
        try await withBlockedWrite(timeout: .seconds(6), serverTimeout: nil) { error in
            #expect(error.code == .unavailable, "\(error)")
            let serverTimeout = ["57014", "55P03"].contains { error.reason.contains("sqlState: \($0)") }
            #expect(serverTimeout, "not ended by the server's timeout: \(error.reason.prefix(300))")
        }
    }

    /// With the server's timeouts far longer than the operation's (60 s), only the client
    /// can end the write in time: its error must say that it may have been applied, and the
    /// cache must cancel it on the server.
    @Test func aWriteTheClientAbandonsIsCancelledOnTheServerAndSaysItMayHaveBeenApplied() async throws {
        try await withBlockedWrite(timeout: .milliseconds(500), serverTimeout: .seconds(60)) { error in
            #expect(error.code == .mayHaveBeenApplied, "\(error)")
            #expect(error.key == "contested")
        }
    }

    /// Stores "old" under "contested", holds the row's lock in another transaction that
    /// writes "newer", lets a strict cache (`timeout`) write "stale", hands its error to
    /// `check`, waits until the server shows no active query of the cache's client, commits
    /// "newer", and checks that "newer" is what stays.
    private func withBlockedWrite(timeout: Duration, serverTimeout: Duration?, _ check: @Sendable (StashError) -> Void) async throws {
        try await TestPostgres.withSchema { url, schema, admin in
            let patient = SharedCache(client: admin, configuration: TestPostgres.configuration)
            try await patient.migrate()
            try await patient.set(Data("old".utf8), forKey: "contested")
            let application = "stash-timeout-" + UUID().uuidString.prefix(8).lowercased()
            try await Self.withClient(url: url, schema: schema, application: application) { client in
                var configuration = TestPostgres.configuration
                configuration.timeout = timeout
                configuration.serverTimeout = serverTimeout
                let cache = SharedCache(client: client, configuration: configuration)
                // A connection opened and configured before the lock is taken, so that the
                // write's time goes to the lock, not to connecting on a busy machine.
                for _ in 0..<3 where (try? await cache.value(forKey: "contested")) == nil {}
                try await admin.withConnection { holder in
                    _ = try await holder.query("BEGIN", logger: TestPostgres.quiet)
                    _ = try await holder.query("UPDATE stash_cache SET value = \(ByteBuffer(string: "newer")) WHERE key = 'contested'", logger: TestPostgres.quiet)
                    let started = ContinuousClock.now
                    do {
                        try await cache.set(Data("stale".utf8), forKey: "contested")
                        Issue.record("a write blocked by a lock succeeded")
                    } catch let error as StashError {
                        check(error)
                    }
                    #expect(ContinuousClock.now - started < timeout + .seconds(3), "the write was not answered near its timeout")
                    let lingering = try await Self.activeQueries(of: application, through: holder, within: .seconds(5))
                    #expect(lingering == 0, "the abandoned write is still on the server")
                    _ = try await holder.query("COMMIT", logger: TestPostgres.quiet)
                }
                try await Task.sleep(for: .milliseconds(300))
                #expect(try await patient.value(forKey: "contested") == Data("newer".utf8), "the abandoned write landed over the newer value")
            }
        }
    }

    /// The number of active queries of clients named `application`, polled through
    /// `connection` until it is 0 or `limit` has passed (those left are printed).
    private static func activeQueries(of application: String, through connection: PostgresConnection, within limit: Duration) async throws -> Int {
        let deadline = ContinuousClock.now + limit
        while true {
            // `connection` is inside a transaction, whose statistics are one snapshot unless cleared.
            _ = try await connection.query("SELECT pg_stat_clear_snapshot()", logger: TestPostgres.quiet)
            var count = 0
            let rows = try await connection.query(
                "SELECT pid, coalesce(wait_event, ''), query FROM pg_stat_activity WHERE application_name = \(application) AND state = 'active'",
                logger: TestPostgres.quiet
            )
            for try await (pid, wait, query) in rows.decode((Int32, String, String).self) {
                count += 1
                if ContinuousClock.now >= deadline { print("lingering: backend \(pid) waiting for '\(wait)': \(query.prefix(60))") }
            }
            if count == 0 || ContinuousClock.now >= deadline { return count }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Runs `body` with a running client of `schema` whose connections are named
    /// `application` (`pg_stat_activity.application_name`).
    private static func withClient<T: Sendable>(
        url: String, schema: String, application: String, _ body: @Sendable (PostgresClient) async throws -> T
    ) async throws -> T {
        var configuration = try SharedCache.clientConfiguration(url: url)
        configuration.options.additionalStartupParameters = [("search_path", schema), ("application_name", application)]
        configuration.options.connectTimeout = .seconds(2)
        let client = PostgresClient(configuration: configuration)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            return try await body(client)
        }
    }
}
