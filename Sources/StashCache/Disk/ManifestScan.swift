import Foundation
import StashCore
import GRDBSQLite

/// A walk over many manifest rows (``DiskCache/entries()``, ``DiskCache/statistics()``,
/// prefixes, `removeAll(where:)`) on a connection of its own, inside one read transaction.
///
/// The connection is opened with the cache and kept until ``close()``: a cache keeps working
/// on the files it opened, even once its folder is deleted. Walks take turns on it
/// (``walk(_:)``); a walk started inside another on the same thread (a `removeAll(where:)`
/// predicate that lists the cache) gets a connection of its own for its duration.
///
/// A writer pins the transaction's snapshot (``Walk/pin()``) while it holds its state lock
/// and copies its staged changes: the rows the snapshot holds and the changes staged at that
/// moment are then one consistent view (a flush clears what it committed only under that
/// lock), and the walk itself runs without the lock, so reads and writes go on meanwhile.
/// Memory stays flat: rows are handed out one at a time.
final class ManifestScan: @unchecked Sendable {
    private let lock = Lock()
    /// The thread walking on `connection` now, if any.
    private let walker = LockedValue<pthread_t?>(nil)
    /// `nil` once closed.
    private var connection: Walk?
    private let url: URL

    init(url: URL) throws {
        self.url = url
        let connection = try Walk(url: url)
        // A first read opens the write-ahead log and its index too, while the folder is
        // surely there.
        try connection.rows("SELECT count(*) FROM counter") { _ in false }
        self.connection = connection
    }

    /// Closes the connection; later walks see no rows.
    func close() {
        lock.withLock { connection = nil }
    }

    /// Runs `body` with the connection (`nil` once closed), then ends the read transaction
    /// `body` began, if any.
    func walk<T>(_ body: (Walk?) throws -> T) throws -> T {
        let me = pthread_self()
        if walker.withLock({ $0.map { pthread_equal($0, me) != 0 } ?? false }) {
            let nested = try Walk(url: url)
            defer { nested.end() }
            return try body(nested)
        }
        lock.lock()
        walker.withLock { $0 = me }
        defer {
            connection?.end()
            walker.withLock { $0 = nil }
            lock.unlock()
        }
        return try body(connection)
    }

    /// One SQLite connection for walks.
    final class Walk {
        private var handle: OpaquePointer?
        private let path: String
        private var inTransaction = false

        fileprivate init(url: URL) throws {
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
            end()
            sqlite3_close_v2(handle)
        }

        /// Starts the read transaction and takes its snapshot now (SQLite takes it at the
        /// first read of a transaction, not at `BEGIN`).
        func pin() throws {
            guard sqlite3_exec(handle, "BEGIN", nil, nil, nil) == SQLITE_OK else { throw failure("begin") }
            inTransaction = true
            try rows("SELECT count(*) FROM counter") { _ in false }
        }

        /// ``pin()`` with its error typed, for a caller holding the state lock.
        func pinning() throws(StashError) {
            do {
                try pin()
            } catch let error as StashError {
                throw error
            } catch {
                throw StashError(.io, "\(error)")
            }
        }

        /// Ends the read transaction, if one is open, releasing its snapshot.
        func end() {
            guard inTransaction else { return }
            sqlite3_exec(handle, "COMMIT", nil, nil, nil)
            inTransaction = false
        }

        /// Steps `sql` (with `text` bound to `?1` when given), calling `each` on every row
        /// until it returns `false`.
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
}
