/// How an attribute is stored: SQLite's storage class, plus JSON for nested `Codable` values.
enum ColumnType: String, Sendable, Hashable {
    case integer, real, text, blob, json

    var sqlType: String {
        switch self {
        case .integer: "INTEGER"
        case .real: "REAL"
        case .text, .json: "TEXT"
        case .blob: "BLOB"
        }
    }
}

/// One stored attribute of a model.
struct Column: Sendable, Hashable {
    var name: String
    var type: ColumnType
    var isOptional: Bool
}
