public import Foundation

extension ObjectStore {
    /// A value as SQLite stores it: the storage classes of SQLite.
    ///
    /// ```swift
    /// let value: ObjectStore.StoredValue = 42.storedValue   // .integer(42)
    /// ```
    public enum StoredValue: Sendable, Hashable, CustomStringConvertible {
        /// SQL `NULL`: a `nil` optional.
        case null
        /// A 64-bit signed integer: integers, `Bool`.
        case integer(Int64)
        /// A double: `Double`, `Float`, `Date` (seconds since 1970).
        case real(Double)
        /// UTF-8 text: `String`, `UUID`, `URL`, JSON-encoded values.
        case text(String)
        /// Bytes: `Data`.
        case blob(Data)

        public var description: String {
            switch self {
            case .null: "NULL"
            case .integer(let value): String(value)
            case .real(let value): String(value)
            case .text(let value): value
            case .blob(let value): "<\(value.count) bytes>"
            }
        }
    }
}
