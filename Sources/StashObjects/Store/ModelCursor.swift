import Foundation
import GRDB
import GRDBSQLite

/// A GRDB cursor that decodes each row straight into a model with ``RowDecoder``: GRDB
/// steps the statement (so its observation and error handling stay in charge), the decoder
/// reads the columns through the C API.
final class ModelCursor<M: Model>: DatabaseCursor {
    typealias Element = M
    var _isDone = false
    let _statement: Statement
    let decoder: RowDecoder

    init(statement: Statement, arguments: [ObjectStore.StoredValue], schema: ModelSchema) throws {
        _statement = statement
        decoder = RowDecoder(schema: schema)
        try statement.setArguments(StatementArguments(arguments.map(\.databaseValue)))
    }

    /// A statement left on a row would keep its read snapshot open: reset it, as GRDB's own
    /// cursors do, also when decoding threw half-way.
    deinit {
        sqlite3_reset(_statement.sqliteStatement)
    }

    @inline(__always)
    func _element(sqliteStatement: SQLiteStatement) throws -> M {
        try decoder.decode(M.self, from: sqliteStatement)
    }
}

extension ObjectStore.StoredValue {
    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let value): value.databaseValue
        case .real(let value): value.databaseValue
        case .text(let value): value.databaseValue
        case .blob(let value): value.databaseValue
        }
    }

    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let value): self = .integer(value)
        case .double(let value): self = .real(value)
        case .string(let value): self = .text(value)
        case .blob(let value): self = .blob(value)
        }
    }
}
