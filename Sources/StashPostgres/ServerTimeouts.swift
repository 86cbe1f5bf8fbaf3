import PostgresNIO
import StashCore

/// The server-side timeouts of the connections ``SharedCache`` operations run on:
/// `statement_timeout` and `lock_timeout`, so that PostgreSQL itself gives up on a statement
/// (running, or waiting for a row or table lock) instead of finishing it after the client
/// stopped waiting.
///
/// Operations with the cache's own timeout set them once per connection, for the session
/// (one `SELECT` that also answers the backend's process ID, which ``ServerStatement``
/// cancels), and again only when a cache with another timeout uses the connection: the
/// values each connection holds are remembered here, process-wide, by the connection
/// object (weakly, so a closed connection's record is dropped). Longer operations (expiry,
/// migration, removing by prefix) set theirs for their own transaction only
/// (`set_config(…, true)`), which leaves the session's values alone.
///
/// The server timeout is shorter than the operation's timeout by a margin (``margin(for:)``):
/// a statement that started at once is answered by the server (`57014 query_canceled` or
/// `55P03 lock_not_available`: not applied) before the client's deadline, so most timeouts
/// of a write are known not to have been applied. Whoever else runs statements on the same
/// `PostgresClient` must not change these two settings on its connections.
enum ServerTimeouts {
    private struct Record {
        weak var connection: PostgresConnection?
        let backend: Int32
        let milliseconds: Int64
    }

    private static let records = LockedValue([ObjectIdentifier: Record]())

    /// The server timeout of an operation whose client timeout is `timeout`, in
    /// milliseconds: `timeout` less ``margin(for:)``, at least 1 (0 would mean "none" to
    /// PostgreSQL).
    static func milliseconds(for timeout: Duration) -> Int64 {
        max(1, (timeout - margin(for: timeout)).milliseconds)
    }

    /// How much sooner than the client the server gives up: the time for the statement to
    /// reach it and for its answer to come back, on a busy host. A tenth of `timeout`, but
    /// at least 0.25 s (a tenth of the default 1 s, 0.1 s, was lost on a loaded machine, and
    /// the write was then reported as "may have been applied"), and at most half of it.
    static func margin(for timeout: Duration) -> Duration {
        min(max(timeout / 10, .milliseconds(250)), timeout / 2)
    }

    /// Sets the session's timeouts of `connection` to `milliseconds` unless it holds them
    /// already, and answers its backend's process ID.
    static func session(_ connection: PostgresConnection, milliseconds: Int64) async throws -> Int32 {
        let id = ObjectIdentifier(connection)
        let known = records.withLock { records -> Int32? in
            guard let record = records[id], record.connection === connection, record.milliseconds == milliseconds else { return nil }
            return record.backend
        }
        if let known { return known }
        let backend = try await set(connection, milliseconds: milliseconds, local: false)
        records.withLock { records in
            records = records.filter { $0.value.connection != nil }
            records[id] = Record(connection: connection, backend: backend, milliseconds: milliseconds)
        }
        return backend
    }

    /// Sets the timeouts of the transaction open on `connection` to `milliseconds` and
    /// answers its backend's process ID.
    static func transaction(_ connection: PostgresConnection, milliseconds: Int64) async throws -> Int32 {
        try await set(connection, milliseconds: milliseconds, local: true)
    }

    private static func set(_ connection: PostgresConnection, milliseconds: Int64, local: Bool) async throws -> Int32 {
        let value = String(milliseconds)
        let rows = try await connection.query(
            "SELECT pg_backend_pid(), set_config('statement_timeout', \(value), \(local)), set_config('lock_timeout', \(value), \(local))",
            logger: SharedCache.statementLogger
        )
        for try await (backend, _, _) in rows.decode((Int32, String, String).self) { return backend }
        throw StashError(.unavailable, "setting the server's timeouts answered no row")
    }
}
