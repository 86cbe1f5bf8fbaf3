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
/// **Durability.** WAL with `synchronous = FULL`, set on the write connection (over GRDB's
/// NORMAL, whatever the SQLite build's default): a committed transaction survives a process
/// crash and a power cut
/// (on Apple platforms `fullfsync` is set too: only `F_FULLFSYNC` gets past the drive's
/// cache there). **Thread safety.** Both
/// `DatabaseQueue` (one serial connection, the FMDB-queue model) and `DatabasePool` (one
/// writer, concurrent readers that never block it) are safe to share between threads.
public enum StashDatabase {
    /// The default busy timeout, in seconds.
    public static let defaultBusyTimeout: TimeInterval = 5

    /// The `synchronous` level of every connection these functions open: `FULL`, what the
    /// durability promise above needs in WAL mode (`NORMAL` may lose the last commits to a
    /// power cut). Check it with `PRAGMA synchronous` (2 is FULL).
    package static let synchronous = "FULL"

    /// `configuration` with Stash's defaults applied: WAL, foreign keys on, busy timeout, and
    /// on Apple platforms `fullfsync` on each connection it opens (after the configuration's
    /// own `prepareDatabase`). GRDB sets the writer to `synchronous = NORMAL` when it turns WAL
    /// on, after every `prepareDatabase`: ``queue(at:configuration:busyTimeout:)`` and
    /// ``pool(at:configuration:busyTimeout:)`` set `synchronous = FULL` once the database is
    /// open; a `DatabaseQueue` or `DatabasePool` made directly from this configuration runs
    /// `PRAGMA synchronous = FULL` itself, or keeps NORMAL (a power cut may then roll back
    /// the last commits).
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
        #if canImport(Darwin)
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA fullfsync = ON") }
        #endif
        return configuration
    }

    /// A `DatabaseQueue` (one connection, serialised) on the file at `url`, created if
    /// missing, with Stash's defaults.
    ///
    /// - throws: ``StashCore/StashError/Code/databaseUnavailable`` naming the file when SQLite cannot
    ///   open it (not a database, permissions, a missing folder).
    public static func queue(at url: URL, configuration: Configuration = Configuration(), busyTimeout: TimeInterval = defaultBusyTimeout) throws -> DatabaseQueue {
        let configured = Self.configuration(configuration, busyTimeout: busyTimeout)
        return try opening(url) { try fullySynchronous(DatabaseQueue(path: url.path, configuration: configured)) }
    }

    /// A `DatabasePool` (one writer and concurrent readers) on the file at `url`, created if
    /// missing, with Stash's defaults.
    ///
    /// - throws: ``StashCore/StashError/Code/databaseUnavailable`` naming the file when SQLite cannot
    ///   open it.
    public static func pool(at url: URL, configuration: Configuration = Configuration(), busyTimeout: TimeInterval = defaultBusyTimeout) throws -> DatabasePool {
        let configured = Self.configuration(configuration, busyTimeout: busyTimeout)
        return try opening(url) { try fullySynchronous(DatabasePool(path: url.path, configuration: configured)) }
    }

    /// `writer` with its write connection at `synchronous`, over the NORMAL GRDB sets with
    /// WAL (readers never commit, so their level does not matter).
    private static func fullySynchronous<Writer: DatabaseWriter>(_ writer: Writer) throws -> Writer {
        try writer.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = \(synchronous)") }
        return writer
    }

    private static func opening<Writer>(_ url: URL, _ open: () throws -> Writer) throws -> Writer {
        do {
            return try open()
        } catch let error as DatabaseError {
            throw StashError(.databaseUnavailable, "cannot open the database: \(error.message ?? error.description)", path: url.path)
        }
    }
}
