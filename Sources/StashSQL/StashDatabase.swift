public import Foundation
import GRDB
import StashCore

/// Opens GRDB databases with Stash's defaults: write-ahead logging, foreign keys enforced,
/// and a busy timeout so that a second connection waits for a lock instead of failing.
///
/// Most code opens databases by name through the sandbox
/// (``StashCore/Sandbox/databaseQueue(_:in:configuration:busyTimeout:)``); these functions
/// take any file URL. What they return is plain GRDB: use its whole API.
///
/// ```swift
/// let pool = try StashDatabase.pool(at: URL(fileURLWithPath: "/srv/data/app.sqlite"))
/// try pool.write { db in try db.execute(sql: "CREATE TABLE IF NOT EXISTS t(x)") }
/// ```
///
/// **Durability.** WAL with SQLite's default `synchronous=FULL` under GRDB: a committed
/// transaction survives a process crash and a power cut. **Thread safety.** Both
/// `DatabaseQueue` (one serial connection, the FMDB-queue model) and `DatabasePool` (one
/// writer, concurrent readers that never block it) are safe to share between threads.
public enum StashDatabase {
    /// The default busy timeout, in seconds.
    public static let defaultBusyTimeout: TimeInterval = 5

    /// `configuration` with Stash's defaults applied: WAL, foreign keys on, busy timeout.
    ///
    /// ```swift
    /// var config = Configuration()
    /// config.label = "notes"
    /// let queue = try DatabaseQueue(path: path, configuration: StashDatabase.configuration(config))
    /// ```
    public static func configuration(_ configuration: Configuration = Configuration(), busyTimeout: TimeInterval = defaultBusyTimeout) -> Configuration {
        var configuration = configuration
        configuration.journalMode = .wal
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(busyTimeout)
        return configuration
    }

    /// A `DatabaseQueue` (one connection, serialised) on the file at `url`, created if
    /// missing, with Stash's defaults.
    ///
    /// - throws: ``StashError/Code/databaseUnavailable`` naming the file when SQLite cannot
    ///   open it (not a database, permissions, a missing folder).
    public static func queue(at url: URL, configuration: Configuration = Configuration(), busyTimeout: TimeInterval = defaultBusyTimeout) throws -> DatabaseQueue {
        let configured = Self.configuration(configuration, busyTimeout: busyTimeout)
        return try opening(url) { try DatabaseQueue(path: url.path, configuration: configured) }
    }

    /// A `DatabasePool` (one writer and concurrent readers) on the file at `url`, created if
    /// missing, with Stash's defaults.
    ///
    /// - throws: ``StashError/Code/databaseUnavailable`` naming the file when SQLite cannot
    ///   open it.
    public static func pool(at url: URL, configuration: Configuration = Configuration(), busyTimeout: TimeInterval = defaultBusyTimeout) throws -> DatabasePool {
        let configured = Self.configuration(configuration, busyTimeout: busyTimeout)
        return try opening(url) { try DatabasePool(path: url.path, configuration: configured) }
    }

    private static func opening<Writer>(_ url: URL, _ open: () throws -> Writer) throws -> Writer {
        do {
            return try open()
        } catch let error as DatabaseError {
            throw StashError(.databaseUnavailable, "cannot open the database: \(error.message ?? error.description)", path: url.path)
        }
    }
}
