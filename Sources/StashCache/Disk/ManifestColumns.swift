import Foundation
import GRDBSQLite

/// Reads the columns of a manifest row from a stepped SQLite statement (C API), for the
/// read connection and the scans.
enum ManifestColumns {
    /// The columns a ``DiskRecord`` is read from, in the order ``record(_:at:)`` expects.
    static let record = "size, file, created, accessed, expires, sliding, metadata, loc, span"

    /// The record whose columns (``record``) start at `first`.
    static func record(_ statement: OpaquePointer, at first: Int32) -> DiskRecord {
        DiskRecord(
            size: Int(sqlite3_column_int64(statement, first)),
            file: text(statement, first + 1),
            created: sqlite3_column_double(statement, first + 2),
            accessed: sqlite3_column_double(statement, first + 3),
            expires: optionalDouble(statement, first + 4),
            sliding: optionalDouble(statement, first + 5),
            metadata: blob(statement, first + 6),
            location: location(statement, at: first + 7)
        )
    }

    static func text(_ statement: OpaquePointer, _ column: Int32) -> String? {
        guard sqlite3_column_type(statement, column) != SQLITE_NULL, let bytes = sqlite3_column_text(statement, column) else { return nil }
        let count = Int(sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    static func blob(_ statement: OpaquePointer, _ column: Int32) -> Data? {
        guard sqlite3_column_type(statement, column) != SQLITE_NULL else { return nil }
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let bytes = sqlite3_column_blob(statement, column) else { return Data() }
        return Data(bytes: bytes, count: count)
    }

    static func optionalDouble(_ statement: OpaquePointer, _ column: Int32) -> Double? {
        sqlite3_column_type(statement, column) == SQLITE_NULL ? nil : sqlite3_column_double(statement, column)
    }

    /// Binds `key` to parameter `index` with its length, not as a C string: the bytes SQLite
    /// compares are the key's, all of them. SQLite copies them (`SQLITE_TRANSIENT`).
    static func bind(_ key: String, to statement: OpaquePointer, at index: Int32) {
        var key = key
        key.withUTF8 { utf8 in
            _ = sqlite3_bind_text(
                statement, index, UnsafeRawPointer(utf8.baseAddress)?.assumingMemoryBound(to: CChar.self), Int32(utf8.count),
                unsafeBitCast(-1, to: sqlite3_destructor_type.self)
            )
        }
    }

    /// Binds `text` (NULL when `nil`) to parameter `index`, with its length; SQLite copies it.
    static func bind(_ text: String?, to statement: OpaquePointer, at index: Int32) {
        guard let text else {
            sqlite3_bind_null(statement, index)
            return
        }
        bind(text, to: statement, at: index)
    }

    /// Binds `value` (NULL when `nil`) to parameter `index`.
    static func bind(_ value: Double?, to statement: OpaquePointer, at index: Int32) {
        if let value { sqlite3_bind_double(statement, index, value) } else { sqlite3_bind_null(statement, index) }
    }

    /// Binds `location` to parameters `index` (`loc`) and `index + 1` (`span`), NULL when `nil`.
    static func bind(_ location: ValueLocation?, to statement: OpaquePointer, at index: Int32) {
        guard let location else {
            sqlite3_bind_null(statement, index)
            sqlite3_bind_null(statement, index + 1)
            return
        }
        sqlite3_bind_int64(statement, index, location.packed)
        sqlite3_bind_int64(statement, index + 1, Int64(location.span))
    }

    /// The location named by columns `first` (`loc`) and `first + 1` (`span`): `nil` when
    /// `loc` is NULL, ``ValueLocation/invalid`` when they cannot name one (a crafted row).
    static func location(_ statement: OpaquePointer, at first: Int32) -> ValueLocation? {
        guard sqlite3_column_type(statement, first) != SQLITE_NULL else { return nil }
        guard sqlite3_column_type(statement, first) == SQLITE_INTEGER, sqlite3_column_type(statement, first + 1) == SQLITE_INTEGER else { return .invalid }
        return ValueLocation(packed: sqlite3_column_int64(statement, first), span: sqlite3_column_int64(statement, first + 1)) ?? .invalid
    }

    /// Binds `data` (NULL when `nil`) to parameter `index`; SQLite copies the bytes.
    static func bind(_ data: Data?, to statement: OpaquePointer, at index: Int32) {
        guard let data else {
            sqlite3_bind_null(statement, index)
            return
        }
        data.withUnsafeBytes { bytes in
            // An empty blob, not NULL, for empty data (a NULL address would bind NULL).
            guard let address = bytes.baseAddress, !bytes.isEmpty else {
                sqlite3_bind_zeroblob(statement, index, 0)
                return
            }
            _ = sqlite3_bind_blob(statement, index, address, Int32(bytes.count), unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        }
    }
}
