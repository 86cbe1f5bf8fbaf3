import Foundation
import StashCore
import GRDBSQLite

/// The read connection of a disk cache: one SQLite handle with prepared statements, used
/// through the C API because a cache read must cost a B-tree lookup and little else.
///
/// The manifest is in WAL mode, so this connection reads while the background flush writes
/// on its own connection. Each lookup runs in its own implicit read transaction (the
/// statement is reset at once), so it always sees the last committed flush. A writer looks
/// rows up here under its state lock, so that a lookup and the staged changes it is
/// combined with are one consistent view (a flush clears the changes it committed under
/// that lock too).
///
/// **The read lock, held between flushes.** Each implicit read transaction takes a shared
/// lock on a WAL read-mark slot and drops it at the end: two `fcntl` calls, about half the
/// cost of a hit. SQLite makes those calls only when the first connection of the process
/// takes the slot and the last one drops it, so a writer's reader keeps a second
/// connection (`pinHandle`) in an open read transaction on the latest commit: lookups then
/// share its slot and make no system call. The pinned connection never decides what a
/// lookup sees (each lookup still reads the last commit); it is released around each flush
/// (``unpin()`` / ``pin()``) so that checkpoints can empty the WAL.
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
    private var counterStatement: OpaquePointer?
    /// The connection holding the read lock (``pin()``), for a writer only.
    private var pinHandle: OpaquePointer?
    private var isPinned = false
    private let path: String

    /// Opens the read connection; `pinsReadLock` (a writer's reader) also opens the
    /// connection that holds the read lock between flushes.
    init(url: URL, pinsReadLock: Bool = false) throws {
        path = url.path
        let handle = try Self.open(path)
        self.handle = handle
        // SQLite reads with pread instead when the mapping cannot be made.
        sqlite3_exec(handle, "PRAGMA mmap_size = \(Self.mappedBytes)", nil, nil, nil)
        do {
            rowStatement = try prepare("SELECT \(ManifestColumns.record), data FROM entry WHERE key = ?1")
            recordStatement = try prepare("SELECT \(ManifestColumns.record) FROM entry WHERE key = ?1")
            counterStatement = try prepare("SELECT value FROM counter WHERE name = ?1")
            if pinsReadLock {
                pinHandle = try Self.open(path)
                sqlite3_exec(pinHandle, "PRAGMA cache_size = 1", nil, nil, nil)
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

    /// Opens a read transaction on the latest commit in the pinned connection, so that
    /// lookups share its read lock. A failure leaves it unpinned: lookups then take the lock
    /// themselves, as a plain connection does.
    func pin() {
        lock.withLock {
            guard let pinHandle, !isPinned else { return }
            guard sqlite3_exec(pinHandle, "BEGIN; SELECT count(*) FROM counter", nil, nil, nil) == SQLITE_OK else {
                if sqlite3_get_autocommit(pinHandle) == 0 { sqlite3_exec(pinHandle, "ROLLBACK", nil, nil, nil) }
                return
            }
            isPinned = true
        }
    }

    /// Ends the pinned read transaction, so that a checkpoint may copy every commit into the
    /// database and start the WAL over.
    func unpin() {
        lock.withLock {
            guard let pinHandle, isPinned else { return }
            sqlite3_exec(pinHandle, "COMMIT", nil, nil, nil)
            isPinned = false
        }
    }

    deinit { close() }

    func close() {
        lock.withLock {
            sqlite3_finalize(rowStatement)
            sqlite3_finalize(recordStatement)
            sqlite3_finalize(counterStatement)
            sqlite3_close(handle)
            sqlite3_close(pinHandle)
            pinHandle = nil
            isPinned = false
            rowStatement = nil
            recordStatement = nil
            counterStatement = nil
            handle = nil
        }
    }

    /// The row of `key`, with its inline value when it has one.
    func row(forKey key: String) -> (record: DiskRecord, inlineValue: Data?)? {
        lock.withLock {
            guard let statement = rowStatement else { return nil }
            return lookUp(statement, key) { statement in
                let record = ManifestColumns.record(statement, at: 0)
                return (record, record.isInline ? ManifestColumns.blob(statement, 7) ?? Data() : nil)
            }
        }
    }

    /// The row of `key` without its value.
    func record(forKey key: String) -> DiskRecord? {
        lock.withLock {
            guard let statement = recordStatement else { return nil }
            return lookUp(statement, key) { statement in ManifestColumns.record(statement, at: 0) }
        }
    }

    /// The counter `name` (`count`, `bytes`, `hits`, `misses`) as last committed, `0` when
    /// absent or unreadable.
    func counter(_ name: String) -> Int {
        lock.withLock {
            guard let statement = counterStatement else { return 0 }
            return lookUp(statement, name) { statement in Int(sqlite3_column_int64(statement, 0)) } ?? 0
        }
    }

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

    private func lookUp<T>(_ statement: OpaquePointer, _ key: String, _ read: (OpaquePointer) -> T?) -> T? {
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        var key = key
        return key.withUTF8 { utf8 -> T? in
            // Bound with its length, not as a C string: the bytes SQLite compares are the
            // key's, all of them.
            sqlite3_bind_text(statement, 1, UnsafeRawPointer(utf8.baseAddress)?.assumingMemoryBound(to: CChar.self), Int32(utf8.count), nil)
            guard sqlite3_step(statement) == SQLITE_ROW else { return nil }
            return read(statement)
        }
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
