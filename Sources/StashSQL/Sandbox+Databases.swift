public import Foundation
import GRDB
public import StashCore

extension Sandbox {
    /// The file of database `name` in `folder`: `<folder>/<name>.sqlite`, or `<folder>/<name>`
    /// when the name already ends in `.sqlite`, `.sqlite3` or `.db`. The folder is created.
    ///
    /// ```swift
    /// try sandbox.databaseURL("notes")   // …/Documents/notes.sqlite
    /// ```
    ///
    /// - throws: ``/StashCore/StashError/Code/invalidName`` for an empty name, `.`/`..`, a `/`, a
    ///   control character, or a name that starts with `.` (SQLite's own files hide there).
    public func databaseURL(_ name: String, in folder: Folder = .documents) throws -> URL {
        try Sandbox.validate(name: name, what: "database name")
        if name.hasPrefix(".") {
            throw StashError(.invalidName, "database name may not start with '.'", key: name)
        }
        let known = ["sqlite", "sqlite3", "db"]
        let file = known.contains((name as NSString).pathExtension.lowercased()) ? name : name + ".sqlite"
        return try url(for: folder).appendingPathComponent(file, isDirectory: false)
    }

    /// Opens (creating it if needed) database `name` in `folder` as a GRDB `DatabaseQueue`:
    /// one connection, every access serialised, the FMDB-queue model. WAL, foreign keys and
    /// a busy timeout are set (see ``StashDatabase``).
    ///
    /// ```swift
    /// let db = try sandbox.databaseQueue("notes")
    /// try db.write { db in
    ///     try db.execute(sql: "CREATE TABLE IF NOT EXISTS note(id INTEGER PRIMARY KEY, title TEXT)")
    ///     try db.execute(sql: "INSERT INTO note(title) VALUES (?)", arguments: ["Hello"])
    /// }
    /// let titles = try db.read { db in try String.fetchAll(db, sql: "SELECT title FROM note") }
    /// ```
    ///
    /// - parameters:
    ///   - name: The database's name (see ``databaseURL(_:in:)``).
    ///   - folder: Where the file goes: documents by default (backed up); application
    ///     support or caches are the other usual places.
    ///   - configuration: GRDB options; Stash's defaults are applied on top.
    ///   - busyTimeout: How long to wait for another connection's lock, in seconds.
    /// - throws: ``/StashCore/StashError/Code/invalidName`` or ``StashCore/StashError/Code/databaseUnavailable``.
    public func databaseQueue(
        _ name: String,
        in folder: Folder = .documents,
        configuration: Configuration = Configuration(),
        busyTimeout: TimeInterval = StashDatabase.defaultBusyTimeout
    ) throws -> DatabaseQueue {
        try StashDatabase.queue(at: databaseURL(name, in: folder), configuration: configuration, busyTimeout: busyTimeout)
    }

    /// Opens (creating it if needed) database `name` in `folder` as a GRDB `DatabasePool`:
    /// one writer plus concurrent readers that see the last committed state and never block
    /// the writer. WAL, foreign keys and a busy timeout are set.
    ///
    /// ```swift
    /// let pool = try sandbox.databasePool("library", in: .applicationSupport)
    /// let count = try pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM book") }
    /// ```
    ///
    /// - throws: ``/StashCore/StashError/Code/invalidName`` or ``StashCore/StashError/Code/databaseUnavailable``.
    public func databasePool(
        _ name: String,
        in folder: Folder = .documents,
        configuration: Configuration = Configuration(),
        busyTimeout: TimeInterval = StashDatabase.defaultBusyTimeout
    ) throws -> DatabasePool {
        try StashDatabase.pool(at: databaseURL(name, in: folder), configuration: configuration, busyTimeout: busyTimeout)
    }
}
