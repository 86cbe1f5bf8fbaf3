import Foundation
import StashCore
#if canImport(GRDBSQLite)
import GRDBSQLite
#else
import SQLite3
#endif

/// The read connection of a disk cache: one SQLite handle with prepared statements, used
/// through the C API because a cache read must cost a B-tree lookup and little else.
///
/// The manifest is in WAL mode, so this connection reads while the background flush writes
/// on its own connection. Each lookup runs in its own implicit read transaction (the
/// statement is reset at once), so it always sees the last committed flush.
final class ManifestReader: @unchecked Sendable {
    private let lock = Lock()
    private var handle: OpaquePointer?
    private var valueStatement: OpaquePointer?
    private var rowStatement: OpaquePointer?
    private let path: String

    init(url: URL) throws {
        path = url.path
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX
        guard sqlite3_open_v2(path, &handle, flags, nil) == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(handle)
            throw StashError(.io, "open manifest for reading: \(message)", path: path)
        }
        self.handle = handle
        sqlite3_busy_timeout(handle, 5_000)
        do {
            valueStatement = try prepare("SELECT data FROM entry WHERE key = ?1")
            rowStatement = try prepare(
                "SELECT size, file, created, accessed, expires, sliding, metadata, data FROM entry WHERE key = ?1"
            )
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    func close() {
        lock.withLock {
            sqlite3_finalize(valueStatement)
            sqlite3_finalize(rowStatement)
            sqlite3_close(handle)
            valueStatement = nil
            rowStatement = nil
            handle = nil
        }
    }

    /// The inline value of `key`, or `nil` when the manifest has no inline value for it.
    func inlineValue(forKey key: String) -> Data? {
        lock.withLock {
            guard let statement = valueStatement else { return nil }
            return lookUp(statement, key) { statement in blob(statement, 0) }
        }
    }

    /// The row of `key`, with its inline value when it has one.
    func row(forKey key: String) -> (record: DiskRecord, inlineValue: Data?)? {
        lock.withLock {
            guard let statement = rowStatement else { return nil }
            return lookUp(statement, key) { statement in
                let record = DiskRecord(
                    size: Int(sqlite3_column_int64(statement, 0)),
                    file: text(statement, 1),
                    created: sqlite3_column_double(statement, 2),
                    accessed: sqlite3_column_double(statement, 3),
                    expires: optionalDouble(statement, 4),
                    sliding: optionalDouble(statement, 5),
                    metadata: blob(statement, 6)
                )
                return (record, record.isInline ? blob(statement, 7) ?? Data() : nil)
            }
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

    private func text(_ statement: OpaquePointer, _ column: Int32) -> String? {
        guard sqlite3_column_type(statement, column) != SQLITE_NULL, let bytes = sqlite3_column_text(statement, column) else { return nil }
        let count = Int(sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    private func blob(_ statement: OpaquePointer, _ column: Int32) -> Data? {
        guard sqlite3_column_type(statement, column) != SQLITE_NULL else { return nil }
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let bytes = sqlite3_column_blob(statement, column) else { return Data() }
        return Data(bytes: bytes, count: count)
    }

    private func optionalDouble(_ statement: OpaquePointer, _ column: Int32) -> Double? {
        sqlite3_column_type(statement, column) == SQLITE_NULL ? nil : sqlite3_column_double(statement, column)
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
