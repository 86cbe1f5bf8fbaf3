import Foundation
import StashCore
#if canImport(GRDBSQLite)
import GRDBSQLite
#else
import SQLite3
#endif

/// A walk over many manifest rows (``DiskCache/entries()``, ``DiskCache/statistics()``,
/// prefixes, `removeAll(where:)`) on a connection of its own, inside one read transaction.
///
/// A writer pins the transaction's snapshot (``pin()``) while it holds its state lock and
/// copies its staged changes: the rows the snapshot holds and the changes staged at that
/// moment are then one consistent view (a flush clears what it committed only under that
/// lock), and the walk itself runs without the lock, so reads and writes go on meanwhile.
/// Memory stays flat: rows are handed out one at a time.
final class ManifestScan {
    private var handle: OpaquePointer?
    private let path: String
    private var inTransaction = false

    init(url: URL) throws {
        path = url.path
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(handle)
            throw StashError(.io, "open manifest for a scan: \(message)", path: path)
        }
        self.handle = handle
        sqlite3_busy_timeout(handle, 5_000)
    }

    deinit {
        if inTransaction { sqlite3_exec(handle, "COMMIT", nil, nil, nil) }
        sqlite3_close_v2(handle)
    }

    /// Starts the read transaction and takes its snapshot now (SQLite takes it at the first
    /// read of a transaction, not at `BEGIN`).
    func pin() throws {
        guard sqlite3_exec(handle, "BEGIN", nil, nil, nil) == SQLITE_OK else { throw failure("begin") }
        inTransaction = true
        try rows("SELECT count(*) FROM counter") { _ in false }
    }

    /// Steps `sql` (with `text` bound to `?1` when given), calling `each` on every row until
    /// it returns `false`.
    func rows(_ sql: String, binding text: String? = nil, _ each: (OpaquePointer) throws -> Bool) throws {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else { throw failure("prepare") }
        defer { sqlite3_finalize(statement) }
        if let text { ManifestColumns.bind(text, to: statement, at: 1) }
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { return }
            guard status == SQLITE_ROW else { throw failure("step") }
            guard try each(statement) else { return }
        }
    }

    private func failure(_ what: String) -> StashError {
        let code: StashError.Code = sqlite3_errcode(handle) == SQLITE_CORRUPT || sqlite3_errcode(handle) == SQLITE_NOTADB ? .corruptFile : .io
        return StashError(code, "manifest scan (\(what)): \(String(cString: sqlite3_errmsg(handle)))", path: path)
    }
}
