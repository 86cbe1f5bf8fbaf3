import Foundation
import GRDB

/// How a stored value becomes a value of an attribute's new type when a migration retypes
/// it: only where nothing is lost. The same function checks every row before anything is
/// written (`NULL` = does not convert) and converts them during the table's rebuild, so the
/// check and the copy can never disagree.
///
/// | to \ from | integer                | real                        | text                      | blob          |
/// |-----------|------------------------|-----------------------------|---------------------------|---------------|
/// | INTEGER   | kept                   | a whole number in range     | a decimal integer (`"42"`) | refused       |
/// | REAL      | exactly representable  | kept                        | a finite decimal number   | refused       |
/// | TEXT      | its decimal digits     | Swift's `description`       | kept                      | valid UTF-8   |
/// | BLOB      | refused                | refused                     | its UTF-8 bytes           | kept          |
enum ValueConversion {
    /// The SQL function's name, registered on the migrating connection only.
    static let functionName = "stash_migration_convert"

    /// `stash_migration_convert(value, 'INTEGER' | 'REAL' | 'TEXT' | 'BLOB')`.
    static let function = DatabaseFunction(functionName, argumentCount: 2, pure: true) { values in
        guard let target = String.fromDatabaseValue(values[1]) else { return nil }
        return convert(values[0], to: target)
    }

    /// The SQL expression converting `column` to `type` (a declared `sqlType`).
    static func expression(_ column: String, to type: String) -> String {
        "\(functionName)(\(SQL.quote(column)), \(SQL.literal(.text(type))))"
    }

    /// `value` as a value of SQL type `target`, or `nil` when it does not convert exactly.
    static func convert(_ value: DatabaseValue, to target: String) -> DatabaseValue? {
        switch (value.storage, target) {
        case (.null, _):
            return .null
        case (.int64, "INTEGER"), (.double, "REAL"), (.string, "TEXT"), (.blob, "BLOB"):
            return value
        case (.double(let number), "INTEGER"):
            return Int64(exactly: number).map(\.databaseValue)
        case (.string(let text), "INTEGER"):
            return Int64(text).map(\.databaseValue)
        case (.int64(let number), "REAL"):
            return Double(exactly: number).map(\.databaseValue)
        case (.string(let text), "REAL"):
            guard let number = Double(text), number.isFinite else { return nil }
            return number.databaseValue
        case (.int64(let number), "TEXT"):
            return String(number).databaseValue
        case (.double(let number), "TEXT"):
            return number.isFinite ? number.description.databaseValue : nil
        case (.blob(let data), "TEXT"):
            return String(data: data, encoding: .utf8).map(\.databaseValue)
        case (.string(let text), "BLOB"):
            return Data(text.utf8).databaseValue
        default:
            return nil
        }
    }

    /// How a refused value is shown in an error: its storage class and at most 40 characters.
    static func describe(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: "NULL"
        case .int64(let number): "the integer \(number)"
        case .double(let number): "the real \(number)"
        case .string(let text): "the text '\(text.count > 40 ? text.prefix(40) + "…" : Substring(text))'"
        case .blob(let data): "a blob of \(data.count) bytes"
        }
    }
}
