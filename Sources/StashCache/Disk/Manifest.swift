import Foundation
import GRDB
import StashCore
import GRDBSQLite

/// The SQLite manifest of a disk cache, on its write connection.
///
/// One table, `entry`, holds every entry: key, size, file name (NULL when the value is
/// inline), creation, last access, expiry, sliding window, metadata and the inline value.
/// `counter` keeps hits and misses across launches, and the entry count and total size
/// (``Manifest+Schema.swift``), so that opening never scans the rows. WAL with `synchronous = NORMAL`: a commit survives a process
/// crash; a power cut may roll back the last commits, which reconciliation absorbs.
final class Manifest: Sendable {
    static let schemaVersion = 3

    let url: URL
    let database: DatabaseQueue
    /// The frames in the WAL after the last commit (``Manifest+Checkpoint.swift``).
    let walFrames = WALFrameCount()

    /// Opens (creating it when missing) the manifest at `url`.
    ///
    /// - throws: ``StashError/Code/corruptFile`` when the file is not a usable manifest.
    init(url: URL, readOnly: Bool) throws {
        self.url = url
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.busyMode = .timeout(5)
        configuration.label = "StashCache.manifest"
        let walFrames = self.walFrames
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            walFrames.install(on: db.sqliteConnection)
        }
        do {
            database = try DatabaseQueue(path: url.path, configuration: configuration)
            if !readOnly { try createSchema() }
            try database.read { db in
                let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
                guard version == Manifest.schemaVersion else {
                    throw StashError(.unsupportedVersion, "manifest version \(version), expected \(Manifest.schemaVersion)", path: url.path)
                }
                try Manifest.checkTables(db, path: url.path)
            }
        } catch {
            throw Manifest.stashError(error, path: url.path)
        }
    }

    /// Every row `sql` selects (its arguments `arguments`), handed to `each` one at a time
    /// on the write connection, in one read transaction; `each` returns `false` to stop.
    func rows(_ sql: String, arguments: StatementArguments = [], _ each: (Row) throws -> Bool) throws {
        do {
            try database.read { db in
                let cursor = try Row.fetchCursor(db, sql: sql, arguments: arguments)
                while let row = try cursor.next() {
                    guard try each(row) else { return }
                }
            }
        } catch {
            throw Manifest.stashError(error, path: url.path)
        }
    }

    /// The columns of a ``DiskRecord``, in the order ``record(_:from:)`` reads them.
    static var recordColumns: String { ManifestColumns.record }

    /// The record of a row read with ``recordColumns`` from column `first` on.
    ///
    /// - throws: GRDB's `RowDecodingError` when a column holds a value of another type (a
    ///   crafted or damaged manifest; GRDB's subscripts would trap on it), which
    ///   ``stashError(_:path:)`` makes ``StashError/Code/corruptFile``: the writer's open
    ///   then rebuilds the cache.
    static func record(_ row: Row, from first: Int) throws -> DiskRecord {
        try DiskRecord(
            size: row.decode(atIndex: first), file: row.decode(atIndex: first + 1), created: row.decode(atIndex: first + 2),
            accessed: row.decode(atIndex: first + 3), expires: row.decode(atIndex: first + 4),
            sliding: row.decode(atIndex: first + 5), metadata: row.decode(atIndex: first + 6),
            location: location(row, at: first + 7)
        )
    }

    /// The location named by columns `first` (`loc`) and `first + 1` (`span`) of `row`, as
    /// ``ManifestColumns/location(_:at:)`` reads it.
    static func location(_ row: Row, at first: Int) -> ValueLocation? {
        let loc: DatabaseValue = row[first], span: DatabaseValue = row[first + 1]
        if loc.isNull { return nil }
        guard case .int64(let packed) = loc.storage, case .int64(let length) = span.storage else { return .invalid }
        return ValueLocation(packed: packed, span: length) ?? .invalid
    }

    /// What the manifest counts: hits and misses recorded by every writer so far, and the
    /// number and total size of its entries (kept as they change, so never scanned for).
    func counters() throws -> ManifestCounters {
        do {
            return try database.read { db in
                var counters = ManifestCounters()
                // Cast: a value that is not an integer (a crafted file) reads as one, not as a trap.
                for row in try Row.fetchAll(db, sql: "SELECT name, CAST(value AS INTEGER) FROM counter") {
                    let value: Int = try row.decode(atIndex: 1)
                    switch try row.decode(String?.self, atIndex: 0) {
                    case "hits": counters.hits = value
                    case "misses": counters.misses = value
                    case "count": counters.count = value
                    case "bytes": counters.bytes = value
                    case "generation": counters.generation = Int64(value)
                    case "log_checked": counters.logChecked = value
                    default: break
                    }
                }
                return counters
            }
        } catch {
            throw Manifest.stashError(error, path: url.path)
        }
    }

    /// Writes one flush in one transaction; returns the manifest's new generation when it
    /// changed rows (``advanceGeneration(_:)``).
    @discardableResult
    func apply(_ batch: FlushBatch) throws -> Int64? {
        do {
            return try database.write { db -> Int64? in
                if !batch.writes.isEmpty {
                    let upsert = try db.cachedStatement(sql: """
                        INSERT INTO entry (key, size, file, created, accessed, expires, sliding, metadata, data, loc, span)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?)
                        ON CONFLICT (key) DO UPDATE SET
                            size = excluded.size, file = excluded.file, created = excluded.created,
                            accessed = excluded.accessed, expires = excluded.expires, sliding = excluded.sliding,
                            metadata = excluded.metadata, data = NULL, loc = excluded.loc, span = excluded.span
                        """)
                    // Bound and stepped through the C API: GRDB's arguments box every value.
                    let statement = upsert.sqliteStatement
                    for write in batch.writes {
                        let record = write.record
                        ManifestColumns.bind(write.key, to: statement, at: 1)
                        sqlite3_bind_int64(statement, 2, Int64(record.size))
                        ManifestColumns.bind(record.file, to: statement, at: 3)
                        sqlite3_bind_double(statement, 4, record.created)
                        sqlite3_bind_double(statement, 5, record.accessed)
                        ManifestColumns.bind(record.expires, to: statement, at: 6)
                        ManifestColumns.bind(record.sliding, to: statement, at: 7)
                        ManifestColumns.bind(record.metadata, to: statement, at: 8)
                        ManifestColumns.bind(write.location, to: statement, at: 9)
                        try Manifest.step(statement, db)
                    }
                }
                if !batch.removals.isEmpty {
                    let delete = try db.cachedStatement(sql: "DELETE FROM entry WHERE key = ?")
                    for key in batch.removals {
                        ManifestColumns.bind(key, to: delete.sqliteStatement, at: 1)
                        try Manifest.step(delete.sqliteStatement, db)
                    }
                }
                for (segment, size) in batch.segmentEnds { try Manifest.recordSegment(segment, size: size, db) }
                if !batch.touches.isEmpty { try touch(batch.touches, db) }
                if !batch.touchedLocations.isEmpty { try touch(locations: batch.touchedLocations, db) }
                let generation = !batch.writes.isEmpty || !batch.removals.isEmpty ? try Manifest.advanceGeneration(db) : nil
                if batch.hits != 0 || batch.misses != 0 || batch.addedCount != 0 || batch.addedBytes != 0 {
                    let count = try db.cachedStatement(sql: """
                        INSERT INTO counter (name, value) VALUES (?, ?)
                        ON CONFLICT (name) DO UPDATE SET value = value + excluded.value
                        """)
                    let counts = [("hits", batch.hits), ("misses", batch.misses), ("count", batch.addedCount), ("bytes", batch.addedBytes)]
                    for (name, value) in counts where value != 0 {
                        count.setUncheckedArguments([name, value])
                        try count.execute()
                    }
                }
                return generation
            }
        } catch {
            throw Manifest.stashError(error, path: url.path)
        }
    }

    /// Writes the last-access dates (and sliding deadlines) of `touches`: their rows found
    /// through the key index in its order (``ManifestKeyOrder``), then changed in the
    /// table's, which is the order of their `rowid`s. However many rows change, each page of
    /// either is visited once, and the WAL gets about one frame per page changed. A key
    /// without a row (removed since it was read) is skipped.
    private func touch(_ touches: [String: AccessChange], _ db: Database) throws {
        let keys = Array(touches.keys)
        let find = try db.cachedStatement(sql: "SELECT rowid FROM entry WHERE key = ?1").sqliteStatement
        var rows: [(rowid: Int64, access: AccessChange)] = []
        rows.reserveCapacity(keys.count)
        try Manifest.lookUp(ManifestKeyOrder.positions(of: keys).lazy.map { keys[$0] }, with: find, db) { key in
            if let access = touches[key] { rows.append((sqlite3_column_int64(find, 0), access)) }
        }
        rows.sort { $0.rowid < $1.rowid }
        let update = try db.cachedStatement(sql: "UPDATE entry SET accessed = ?, expires = ? WHERE rowid = ?").sqliteStatement
        for row in rows {
            sqlite3_bind_double(update, 1, row.access.accessed)
            ManifestColumns.bind(row.access.expires, to: update, at: 2)
            sqlite3_bind_int64(update, 3, row.rowid)
            try Manifest.step(update, db)
        }
    }

    /// Writes the last-access dates of small values read by the location of their records,
    /// in the order of `entry_loc` (close to the table's, as rows are appended). A row
    /// rewritten, moved or removed since names another location or none, and is left alone.
    private func touch(locations touches: [Int64: Double], _ db: Database) throws {
        let update = try db.cachedStatement(sql: "UPDATE entry SET accessed = ? WHERE loc = ?").sqliteStatement
        for (location, accessed) in touches.sorted(by: { $0.key < $1.key }) {
            sqlite3_bind_double(update, 1, accessed)
            sqlite3_bind_int64(update, 2, location)
            try Manifest.step(update, db)
        }
    }

    /// Steps `statement`, a write bound through the C API, to its end, then resets it.
    static func step(_ statement: OpaquePointer, _ db: Database) throws {
        let status = sqlite3_step(statement)
        sqlite3_reset(statement)
        guard status == SQLITE_DONE else { throw failure(status, db) }
    }

    /// Looks each of `keys` up, in their order, with `statement` (a `SELECT … WHERE key = ?1`
    /// of `db`, prepared through the C API), and calls `found` with each key that has a row,
    /// while the statement is on it. The statement is reset after each key.
    static func lookUp(_ keys: some Sequence<String>, with statement: OpaquePointer, _ db: Database, found: (String) -> Void) throws {
        for key in keys {
            ManifestColumns.bind(key, to: statement, at: 1)
            let status = sqlite3_step(statement)
            if status == SQLITE_ROW { found(key) }
            sqlite3_reset(statement)
            guard status == SQLITE_ROW || status == SQLITE_DONE else { throw failure(status, db) }
        }
    }

    /// The error of a statement of `db` that stepped to `status`.
    static func failure(_ status: Int32, _ db: Database) -> DatabaseError {
        DatabaseError(resultCode: ResultCode(rawValue: status), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
    }

    /// The rows of `keys` the count and size depend on, in one read transaction: a lookup
    /// of each key on one prepared statement, through the C API (no value is read), in the
    /// order given (a flush gives them in ``ManifestKeyOrder``); a key with no row is absent.
    func bases(of keys: [String]) throws -> [String: ManifestBase] {
        var bases: [String: ManifestBase] = [:]
        guard !keys.isEmpty else { return bases }
        bases.reserveCapacity(keys.count)
        do {
            try database.read { db in
                let statement = try db.cachedStatement(sql: "SELECT size, file FROM entry WHERE key = ?1").sqliteStatement
                try Manifest.lookUp(keys, with: statement, db) { key in
                    let size = Int(sqlite3_column_int64(statement, 0))
                    bases[key] = ManifestBase(exists: true, size: size, file: ManifestColumns.text(statement, 1))
                }
            }
        } catch {
            throw Manifest.stashError(error, path: url.path)
        }
        return bases
    }

    /// Removes rows and corrects sizes found wrong by reconciliation, in one transaction.
    func repair(removing keys: [String], resizing sizes: [String: Int]) throws {
        try rewrite(removing: keys, renaming: [], resizing: sizes)
    }

    /// In one transaction: deletes the rows of `removing`, gives rows new keys and file names
    /// (`renaming`), corrects sizes. Keys are matched byte for byte, as stored.
    func rewrite(removing keys: [String], renaming moves: [(from: String, to: String, file: String?)], resizing sizes: [String: Int]) throws {
        guard !keys.isEmpty || !moves.isEmpty || !sizes.isEmpty else { return }
        do {
            try database.write { db in
                let delete = try db.cachedStatement(sql: "DELETE FROM entry WHERE key = ?")
                for key in keys {
                    delete.setUncheckedArguments([key])
                    Manifest.bind(key: key, to: delete, at: 1)
                    try delete.execute()
                }
                let rename = try db.cachedStatement(sql: "UPDATE OR REPLACE entry SET key = ?, file = ? WHERE key = ?")
                for move in moves {
                    rename.setUncheckedArguments([move.to, move.file, move.from])
                    Manifest.bind(key: move.to, to: rename, at: 1)
                    Manifest.bind(key: move.from, to: rename, at: 3)
                    try rename.execute()
                }
                let resize = try db.cachedStatement(sql: "UPDATE entry SET size = ? WHERE key = ?")
                for (key, size) in sizes {
                    resize.setUncheckedArguments([size, key])
                    Manifest.bind(key: key, to: resize, at: 2)
                    try resize.execute()
                }
                try Manifest.advanceGeneration(db)
                // A repair is rare: the count and size are counted again.
                try db.execute(sql: """
                    INSERT OR REPLACE INTO counter (name, value) SELECT 'count', count(*) FROM entry;
                    INSERT OR REPLACE INTO counter (name, value) SELECT 'bytes', coalesce(sum(size), 0) FROM entry;
                    """)
            }
        } catch {
            throw Manifest.stashError(error, path: url.path)
        }
    }

    /// Binds `key` to parameter `index` of `statement` with its length in bytes. GRDB binds
    /// strings as C strings, which would end a key at a NUL; keys holding one are refused
    /// before they get here (``StashCore/StoredKey``), and this keeps every byte regardless.
    static func bind(key: String, to statement: Statement, at index: CInt) {
        var key = key
        key.withUTF8 { utf8 in
            _ = sqlite3_bind_text(
                statement.sqliteStatement, index,
                UnsafeRawPointer(utf8.baseAddress)?.assumingMemoryBound(to: CChar.self), CInt(utf8.count),
                unsafeBitCast(-1, to: sqlite3_destructor_type.self) // SQLITE_TRANSIENT: SQLite copies
            )
        }
    }

    /// Turns SQLite's errors into Stash's.
    static func stashError(_ error: any Error, path: String) -> StashError {
        if let error = error as? StashError { return error }
        if error is RowDecodingError { return StashError(.corruptFile, "a manifest row holds a value of another type: \(error)", path: path) }
        guard let error = error as? DatabaseError else { return StashError(.io, "\(error)", path: path) }
        let code: StashError.Code
        switch error.resultCode {
        case .SQLITE_FULL: code = .diskFull
        case .SQLITE_READONLY, .SQLITE_PERM, .SQLITE_AUTH: code = .permissionDenied
        case .SQLITE_BUSY, .SQLITE_LOCKED: code = .locked
        // Only what says the file is damaged. `SQLITE_ERROR` is SQLite's generic error (a
        // statement it cannot run now, a crafted trigger): a manifest whose tables are not a
        // cache's is found at open (``checkTables(_:path:)``), so a generic error never has
        // the writer start the cache over.
        case .SQLITE_CORRUPT, .SQLITE_NOTADB, .SQLITE_FORMAT: code = .corruptFile
        default: code = .io
        }
        return StashError(code, error.message ?? "\(error)", path: path)
    }
}

/// What one flush writes: the staged writes and removals (each in the key index's order,
/// ``ManifestKeyOrder``), the access times of entries read since the last flush, and the hit
/// counters.
struct FlushBatch: Sendable {
    /// Each write, with the location of its record in the value log (`nil` for a value in a file).
    var writes: [(key: String, record: DiskRecord, inlineValue: Data?, location: ValueLocation?)] = []
    /// The end of each value log segment the records of the writes went to, after them.
    var segmentEnds: [Int: Int] = [:]
    var removals: [String] = []
    var touches: [String: AccessChange] = [:]
    /// The access dates of small values read, by their records' locations.
    var touchedLocations: [Int64: Double] = [:]
    var hits = 0
    var misses = 0
    /// What the writes and removals change in the number of entries and their total size.
    var addedCount = 0
    var addedBytes = 0

    var isEmpty: Bool { writes.isEmpty && removals.isEmpty && touches.isEmpty && touchedLocations.isEmpty && hits == 0 && misses == 0 }
}

/// The figures of ``Manifest/counters()``.
struct ManifestCounters: Sendable {
    var hits = 0
    var misses = 0
    var count = 0
    var bytes = 0
    /// The transactions that changed rows so far (``Manifest/advanceGeneration(_:)``).
    var generation: Int64 = 0
    /// The value log's size when compaction last measured its live bytes.
    var logChecked = 0
}
