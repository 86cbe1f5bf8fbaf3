import Foundation
import StashCore
import GRDBSQLite

/// The read connection of a disk cache: one SQLite handle with prepared statements, used
/// through the C API because a cache read must cost a B-tree lookup and little else.
///
/// The manifest is in WAL mode, so this connection reads while the background flush writes
/// on its own connection. A writer looks rows up here under its state lock, so that a
/// lookup and the staged changes it is combined with are one consistent view (a flush
/// clears the changes it committed under that lock too).
///
/// **A writer's reader holds one read transaction between flushes.** A lookup in a
/// transaction of its own opens it and ends it: the WAL read lock it takes and drops (two
/// `fcntl` calls, about half the cost of a hit without them) and the bookkeeping of both
/// ends cost more than the B-tree lookup of a small cache. Only the writer's flush changes
/// the manifest, so its reader keeps a read transaction open on the latest commit
/// (``pin()``) and every lookup runs inside it. A flush moves it to its commit once made
/// (``renew()``), before it forgets the staged changes it wrote. When the WAL is due a
/// checkpoint (``Manifest/needsCheckpoint``), the flush then checkpoints, which copies every
/// frame back (no reader is on an older commit), and moves it again, onto the checkpointed
/// file, so that it holds no frame and the next commit starts the WAL over.
/// While a cache is suspended it holds none (``unpin()``): lookups then run in transactions
/// of their own, and see the last commit, as a read-only view's always do (another process
/// may write).
///
/// **Rowid hints.** A lookup of a key found before goes by the rowid of its row
/// (``ManifestRowHints``): one descent of the table's B-tree instead of the key index's and
/// then the table's.
///
/// **Memory-mapped.** The lookup connection maps the manifest (``mappedBytes``): a page is
/// read in place rather than copied by a `pread` into SQLite's page cache. A cache of a
/// million entries no longer fits that page cache (2 MB), so without the mapping each read
/// costs several system calls and copies; with it, a read costs the B-tree descent alone.
/// The mapped pages are the file's own, clean and shared with the system's file cache: the
/// system reclaims them under memory pressure without writing anything (on Apple platforms
/// they are not part of the footprint that jetsam limits), though Linux counts those
/// touched in the process's resident size. Pages of commits still in the WAL are read as
/// before. Stash never shrinks the manifest in place (a rebuild deletes it and starts a new
/// file, which leaves existing mappings valid); a process that truncated it behind SQLite's
/// locks could make a mapped read fault, which is SQLite's documented limit of `mmap_size`.
final class ManifestReader: @unchecked Sendable {
    private let lock = Lock()
    private var handle: OpaquePointer?
    private var rowStatement: OpaquePointer?
    private var recordStatement: OpaquePointer?
    /// The same two lookups by rowid (``ManifestRowHints``), the row's key last.
    private var rowByRowidStatement: OpaquePointer?
    private var recordByRowidStatement: OpaquePointer?
    private var hints = ManifestRowHints()
    private var counterStatement: OpaquePointer?
    /// Whether lookups run in one read transaction held between flushes (a writer's).
    private var holdsSnapshot = false
    private var isPinned = false
    private let path: String

    /// Opens the read connection; `holdsSnapshot` (a writer's reader) holds a read
    /// transaction between flushes, opened here.
    init(url: URL, holdsSnapshot: Bool = false) throws {
        path = url.path
        let handle = try Self.open(path)
        self.handle = handle
        // SQLite reads with pread instead when the mapping cannot be made.
        sqlite3_exec(handle, "PRAGMA mmap_size = \(Self.mappedBytes)", nil, nil, nil)
        do {
            rowStatement = try prepare("SELECT \(ManifestColumns.record), data, rowid FROM entry WHERE key = ?1")
            recordStatement = try prepare("SELECT \(ManifestColumns.record), rowid FROM entry WHERE key = ?1")
            rowByRowidStatement = try prepare("SELECT \(ManifestColumns.record), data, key FROM entry WHERE rowid = ?1")
            recordByRowidStatement = try prepare("SELECT \(ManifestColumns.record), key FROM entry WHERE rowid = ?1")
            counterStatement = try prepare("SELECT value FROM counter WHERE name = ?1")
            if holdsSnapshot {
                self.holdsSnapshot = true
                pin()
            }
        } catch {
            close()
            throw error
        }
    }

    /// How much of the manifest the lookup connection maps: 1 GiB, about 4 million entries
    /// of small inline values (address space, not memory), on 64-bit platforms; none where
    /// address space is scarce. Beyond it, pages are read with `pread`.
    static let mappedBytes: Int64 = MemoryLayout<Int>.size >= 8 ? 1 << 30 : 0

    private static func open(_ path: String) throws -> OpaquePointer {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX
        guard sqlite3_open_v2(path, &handle, flags, nil) == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(handle)
            throw StashError(.io, "open manifest for reading: \(message)", path: path)
        }
        sqlite3_busy_timeout(handle, 5_000)
        return handle
    }

    /// Opens the read transaction that lookups run in, on the latest commit (a writer's
    /// reader only). A failure leaves none open: each lookup then runs in a transaction of
    /// its own, as a read-only view's does.
    func pin() {
        lock.withLock { unlockedPin() }
    }

    private func unlockedPin() {
        guard holdsSnapshot, !isPinned, let handle else { return }
        guard sqlite3_exec(handle, "BEGIN; SELECT count(*) FROM counter", nil, nil, nil) == SQLITE_OK else {
            if sqlite3_get_autocommit(handle) == 0 { sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }
            return
        }
        isPinned = true
    }

    /// Ends the read transaction of ``pin()``; lookups see the last commit until the next
    /// ``pin()``.
    func unpin() {
        lock.withLock { unlockedUnpin() }
    }

    /// Moves the read transaction of ``pin()`` to the latest commit, with no lookup in
    /// between (and opens it again if an earlier ``pin()`` failed).
    func renew() {
        lock.withLock {
            unlockedUnpin()
            unlockedPin()
        }
    }

    private func unlockedUnpin() {
        guard isPinned, let handle else { return }
        sqlite3_exec(handle, "COMMIT", nil, nil, nil)
        isPinned = false
    }

    deinit { close() }

    func close() {
        lock.withLock {
            sqlite3_finalize(rowStatement)
            sqlite3_finalize(recordStatement)
            sqlite3_finalize(rowByRowidStatement)
            sqlite3_finalize(recordByRowidStatement)
            sqlite3_finalize(counterStatement)
            sqlite3_close(handle)
            isPinned = false
            rowStatement = nil
            recordStatement = nil
            rowByRowidStatement = nil
            recordByRowidStatement = nil
            hints.removeAll()
            counterStatement = nil
            handle = nil
        }
    }

    /// The row of `key`, with its inline value when it has one: a row from before the value
    /// log (a small value's record is in the log otherwise: ``DiskRecord/location``).
    func row(forKey key: String) -> (record: DiskRecord, inlineValue: Data?)? {
        lock.withLock {
            guard let byKey = rowStatement, let byRowid = rowByRowidStatement else { return nil }
            return lookUp(key, byKey, byRowid, extraColumn: 10) { statement in
                let record = ManifestColumns.record(statement, at: 0)
                return (record, record.isInline && record.location == nil ? ManifestColumns.blob(statement, 9) ?? Data() : nil)
            }.value
        }
    }

    /// The row of `key` without its value; `nil` when there is none, or when it cannot be
    /// read (``lookUpRecord(forKey:)`` tells them apart).
    func record(forKey key: String) -> DiskRecord? {
        try? lookUpRecord(forKey: key)
    }

    /// The row of `key` without its value, `nil` when there is none.
    ///
    /// - throws: ``/StashCore/StashError/Code/io`` when the lookup fails (an I/O error, a
    ///   damaged page, the connection closed): the row may exist.
    func lookUpRecord(forKey key: String) throws(StashError) -> DiskRecord? {
        let found = lock.withLock { () -> Lookup<DiskRecord> in
            guard let byKey = recordStatement, let byRowid = recordByRowidStatement else { return .failed("the manifest's read connection is closed") }
            return lookUp(key, byKey, byRowid, extraColumn: 9) { statement in ManifestColumns.record(statement, at: 0) }
        }
        switch found {
        case .found(let record): return record
        case .absent: return nil
        case .failed(let reason): throw StashError(.io, "look up a manifest row: \(reason)", path: path, key: key)
        }
    }

    /// What a lookup found: the row, no row, or a failure (SQLite's message).
    private enum Lookup<T> {
        case found(T)
        case absent
        case failed(String)

        var value: T? {
            if case .found(let value) = self { return value }
            return nil
        }
    }

    /// The counter `name` (`count`, `bytes`, `hits`, `misses`) as last committed, `0` when
    /// absent or unreadable.
    func counter(_ name: String) -> Int {
        lock.withLock { unlockedCounter(name) }
    }

    /// ``counter(_:)``, under the lock already.
    private func unlockedCounter(_ name: String) -> Int {
        guard let statement = counterStatement else { return 0 }
        return lookUp(statement, name) { statement in Int(sqlite3_column_int64(statement, 0)) } ?? 0
    }

    /// The number of entries as last committed, which bounds the hints kept.
    private func entryCount() -> Int { unlockedCounter("count") }

    /// How much of the manifest the lookup connection maps now (`PRAGMA mmap_size`): 0
    /// once closed.
    var mappedSize: Int64 {
        lock.withLock {
            var statement: OpaquePointer?
            guard let handle, sqlite3_prepare_v2(handle, "PRAGMA mmap_size", -1, &statement, nil) == SQLITE_OK else { return 0 }
            defer { sqlite3_finalize(statement) }
            return sqlite3_step(statement) == SQLITE_ROW ? sqlite3_column_int64(statement, 0) : 0
        }
    }

    /// The row of `key` read by `read`: by the rowid hinted for the key (`byRowid`, whose
    /// column `extraColumn` is the row's key) when it is the key's row, else by the key
    /// (`byKey`, whose column `extraColumn` is the rowid, hinted for next time). A step that
    /// neither finds a row nor ends is a failure, never taken for "no row".
    private func lookUp<T>(_ key: String, _ byKey: OpaquePointer, _ byRowid: OpaquePointer, extraColumn: Int32, _ read: (OpaquePointer) -> T) -> Lookup<T> {
        var key = key
        return key.withUTF8 { utf8 -> Lookup<T> in
            let hash = ManifestRowHints.hash(utf8)
            if let rowid = hints.rowid(for: hash) {
                defer { sqlite3_reset(byRowid) }
                sqlite3_bind_int64(byRowid, 1, rowid)
                if sqlite3_step(byRowid) == SQLITE_ROW, Self.column(byRowid, extraColumn, is: utf8) { return .found(read(byRowid)) }
                hints.remove(hash)
            }
            defer {
                sqlite3_reset(byKey)
                sqlite3_clear_bindings(byKey)
            }
            Self.bind(utf8, to: byKey)
            switch sqlite3_step(byKey) {
            case SQLITE_ROW:
                hints.insert(sqlite3_column_int64(byKey, extraColumn), for: hash) { self.entryCount() }
                return .found(read(byKey))
            case SQLITE_DONE:
                return .absent
            default:
                return .failed(handle.map { String(cString: sqlite3_errmsg($0)) } ?? "closed")
            }
        }
    }

    /// Whether text column `column` of the row `statement` stands on holds `key`'s bytes.
    private static func column(_ statement: OpaquePointer, _ column: Int32, is key: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let bytes = sqlite3_column_text(statement, column) else { return false }
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count == key.count else { return false }
        guard let base = key.baseAddress else { return true }
        return memcmp(bytes, base, count) == 0
    }

    /// The row of `key` that `statement` selects, read by `read`.
    private func lookUp<T>(_ statement: OpaquePointer, _ key: String, _ read: (OpaquePointer) -> T?) -> T? {
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        var key = key
        return key.withUTF8 { utf8 -> T? in
            Self.bind(utf8, to: statement)
            guard sqlite3_step(statement) == SQLITE_ROW else { return nil }
            return read(statement)
        }
    }

    /// Binds `utf8` to the statement's first parameter with its length, not as a C string
    /// (the bytes SQLite compares are the key's, all of them), without a copy: the caller
    /// steps the statement while `utf8` is alive and clears the binding after.
    private static func bind(_ utf8: UnsafeBufferPointer<UInt8>, to statement: OpaquePointer) {
        sqlite3_bind_text(statement, 1, UnsafeRawPointer(utf8.baseAddress)?.assumingMemoryBound(to: CChar.self), Int32(utf8.count), nil)
    }

    private func prepare(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK,
              let statement
        else {
            throw StashError(.io, "prepare manifest query: \(String(cString: sqlite3_errmsg(handle)))", path: path)
        }
        return statement
    }
}

