import Foundation
import GRDBSQLite
import Stash

/// The plain SQLite design of a disk cache (`sqlite-design`), measured beside ``DiskCache`` in
/// the same cases to tell what DiskCache's value log and location index buy over it:
///
/// - one `WITHOUT ROWID` table keyed by the key, holding values of at most 20 KB inline
///   (DiskCache's ``DiskCache/Configuration/inlineThreshold``) and the name of a file for
///   larger ones, each file written when set and synced with its folder before the commit
///   that names it, as DiskCache's are;
/// - access dates apart from the values' pages, in a table of their own, written by the
///   flush at a second's resolution, as DiskCache keeps them;
/// - writes staged in memory, seen by reads at once, and committed by `flush` in one
///   transaction (WAL, `synchronous = NORMAL`): DiskCache's durability;
/// - reads on a pool of read-only connections (a reader takes the first one free), each
///   holding its read transaction until a flush commits, with the file mapped (`mmap_size`
///   1 GiB) as DiskCache maps its manifest. SQLite's connections are not shared between
///   threads at once, so concurrent readers need one each
///   (sqlite.org/threadsafe.html, sqlite.org/wal.html#concurrency).
///
/// A design candidate, not a product: no trimming, recovery or key normalization.
final class SQLiteDesignStore: DiskBenchStore, @unchecked Sendable {
    static let inlineThreshold = 20 * 1024
    /// As many read connections as the concurrent cases have threads.
    static let readerCount = 8

    /// A write waiting for the flush.
    private struct Staged {
        var value: Data?
        var file: String?
        var size: Int
        var created: Double
        /// Which write of the key this is: the flush forgets only the writes it committed.
        var sequence: Int
    }

    /// One read connection and its statement, used under its lock.
    private final class Reader {
        let lock = NSLock()
        var handle: OpaquePointer?
        var select: OpaquePointer?
        /// The flush generation its read transaction started after.
        var generation = -1
    }

    private let path: String
    private let files: URL
    private var writer: OpaquePointer?
    /// Staged writes, dates of reads since the last flush, the flush generation, names.
    private let lock = NSLock()
    private var pending: [String: Staged] = [:]
    private var touched: [String: Double] = [:]
    private var generation = 0
    private var sequence = 0
    private let readers: [Reader]

    init(folder: URL) throws {
        try FileStore.createFolder(folder)
        files = folder.appendingPathComponent("files", isDirectory: true)
        try FileStore.createFolder(files)
        path = folder.appendingPathComponent("cache.sqlite").path
        guard sqlite3_open_v2(path, &writer, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK else {
            throw StashError(.io, "sqlite design: cannot open", path: path)
        }
        readers = (0..<Self.readerCount).map { _ in Reader() }
        for sql in [
            "PRAGMA journal_mode = WAL", "PRAGMA synchronous = NORMAL", "PRAGMA mmap_size = \(1 << 30)",
            "CREATE TABLE IF NOT EXISTS entry (key TEXT PRIMARY KEY NOT NULL, value BLOB, file TEXT, size INTEGER NOT NULL, created REAL NOT NULL, expires REAL) WITHOUT ROWID",
            "CREATE TABLE IF NOT EXISTS access (key TEXT PRIMARY KEY NOT NULL, accessed REAL NOT NULL) WITHOUT ROWID",
        ] { try Self.execute(writer, sql) }
        for reader in readers {
            guard sqlite3_open_v2(path, &reader.handle, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK else {
                throw StashError(.io, "sqlite design: cannot open a reader", path: path)
            }
            try Self.execute(reader.handle, "PRAGMA mmap_size = \(1 << 30)")
            sqlite3_prepare_v2(reader.handle, "SELECT value, file, expires FROM entry WHERE key = ?1", -1, &reader.select, nil)
        }
    }

    deinit {
        for reader in readers {
            sqlite3_finalize(reader.select)
            sqlite3_close(reader.handle)
        }
        sqlite3_close(writer)
    }

    var stagesWrites: Bool { true }
    var readsFromManyThreads: Bool { true }

    func set(_ data: Data, _ key: String) throws {
        let now = Date().timeIntervalSince1970
        var file: String?
        if data.count > Self.inlineThreshold {
            let name = lock.withLock { () -> String in
                sequence += 1
                return "\(sequence).value"
            }
            try FileStore.write(data, to: files.appendingPathComponent(name), durability: .processSafe)
            file = name
        }
        lock.withLock {
            sequence += 1
            pending[key] = Staged(value: file == nil ? data : nil, file: file, size: data.count, created: now, sequence: sequence)
        }
    }

    func get(_ key: String) -> Data? {
        let (staged, current) = lock.withLock { (pending[key], generation) }
        if let staged { return staged.value ?? staged.file.flatMap { try? FileStore.read(files.appendingPathComponent($0)) } }
        // The first free connection, else the first one, waited for.
        let reader = readers.first { $0.lock.try() } ?? {
            readers[0].lock.lock()
            return readers[0]
        }()
        let found: (value: Data?, file: String?)? = {
            defer { reader.lock.unlock() }
            if reader.generation != current {
                // A new snapshot: the last flush's rows.
                if sqlite3_get_autocommit(reader.handle) == 0 { sqlite3_exec(reader.handle, "COMMIT", nil, nil, nil) }
                sqlite3_exec(reader.handle, "BEGIN", nil, nil, nil)
                reader.generation = current
            }
            let select = reader.select
            defer { sqlite3_reset(select) }
            return key.withCString { cKey in
                sqlite3_bind_text(select, 1, cKey, -1, nil)
                guard sqlite3_step(select) == SQLITE_ROW else { return nil }
                if sqlite3_column_type(select, 2) != SQLITE_NULL, sqlite3_column_double(select, 2) <= Date().timeIntervalSince1970 { return nil }
                if sqlite3_column_type(select, 1) != SQLITE_NULL { return (nil, String(cString: sqlite3_column_text(select, 1))) }
                let count = Int(sqlite3_column_bytes(select, 0))
                guard let bytes = sqlite3_column_blob(select, 0) else { return (Data(), nil) }
                return (Data(bytes: bytes, count: count), nil)
            }
        }()
        guard let found else { return nil }
        let value = found.value ?? found.file.flatMap { try? FileStore.read(files.appendingPathComponent($0)) }
        guard let value else { return nil }
        // The access date, to the second, for the next flush.
        let now = Date().timeIntervalSince1970
        lock.withLock {
            if let last = touched[key], now - last < 1 { return }
            touched[key] = now
        }
        return value
    }

    /// Commits the staged writes and the read dates in one transaction, after syncing the
    /// files the writes name (and their folder); then deletes the files the writes replaced.
    func flush() async throws {
        let (batch, touches) = lock.withLock { () -> ([String: Staged], [String: Double]) in
            defer { touched = [:] }
            return (pending, touched)
        }
        guard !batch.isEmpty || !touches.isEmpty else { return }
        let named = batch.values.compactMap(\.file)
        for name in named { try Self.sync(files.appendingPathComponent(name).path) }
        if !named.isEmpty { try Self.sync(files.path) }
        var replaced: [String] = []
        try Self.execute(writer, "BEGIN IMMEDIATE")
        do {
            var old: OpaquePointer?
            var upsert: OpaquePointer?
            var access: OpaquePointer?
            sqlite3_prepare_v2(writer, "SELECT file FROM entry WHERE key = ?1 AND file IS NOT NULL", -1, &old, nil)
            sqlite3_prepare_v2(writer, "INSERT OR REPLACE INTO entry (key, value, file, size, created, expires) VALUES (?1, ?2, ?3, ?4, ?5, NULL)", -1, &upsert, nil)
            sqlite3_prepare_v2(writer, "INSERT OR REPLACE INTO access (key, accessed) VALUES (?1, ?2)", -1, &access, nil)
            defer {
                sqlite3_finalize(old)
                sqlite3_finalize(upsert)
                sqlite3_finalize(access)
            }
            for (key, staged) in batch.sorted(by: { $0.key < $1.key }) {
                let status = key.withCString { cKey -> Int32 in
                    sqlite3_bind_text(old, 1, cKey, -1, nil)
                    if sqlite3_step(old) == SQLITE_ROW { replaced.append(String(cString: sqlite3_column_text(old, 0))) }
                    sqlite3_reset(old)
                    sqlite3_bind_text(upsert, 1, cKey, -1, nil)
                    if let value = staged.value {
                        _ = value.withUnsafeBytes { sqlite3_bind_blob(upsert, 2, $0.baseAddress, Int32($0.count), nil) }
                    } else {
                        sqlite3_bind_null(upsert, 2)
                    }
                    if let file = staged.file {
                        _ = file.withCString { sqlite3_bind_text(upsert, 3, $0, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self)) }
                    } else {
                        sqlite3_bind_null(upsert, 3)
                    }
                    sqlite3_bind_int64(upsert, 4, Int64(staged.size))
                    sqlite3_bind_double(upsert, 5, staged.created)
                    defer { sqlite3_reset(upsert) }
                    return sqlite3_step(upsert)
                }
                guard status == SQLITE_DONE else { throw StashError(.io, "sqlite design: write failed (\(status))", key: key) }
            }
            for (key, accessed) in touches.sorted(by: { $0.key < $1.key }) {
                let status = key.withCString { cKey -> Int32 in
                    sqlite3_bind_text(access, 1, cKey, -1, nil)
                    sqlite3_bind_double(access, 2, accessed)
                    defer { sqlite3_reset(access) }
                    return sqlite3_step(access)
                }
                guard status == SQLITE_DONE else { throw StashError(.io, "sqlite design: date write failed (\(status))", key: key) }
            }
            try Self.execute(writer, "COMMIT")
        } catch {
            sqlite3_exec(writer, "ROLLBACK", nil, nil, nil)
            throw error
        }
        lock.withLock {
            for (key, staged) in batch where pending[key]?.sequence == staged.sequence { pending[key] = nil }
            generation += 1
        }
        for name in replaced where !named.contains(name) { unlink(files.appendingPathComponent(name).path) }
    }

    private static func execute(_ handle: OpaquePointer?, _ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else {
            throw StashError(.io, "sqlite design: \(String(cString: sqlite3_errmsg(handle)))")
        }
    }

    private static func sync(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw StashError(.io, "sqlite design: cannot open to sync", path: path) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw StashError(.io, "sqlite design: fsync failed", path: path) }
    }
}
