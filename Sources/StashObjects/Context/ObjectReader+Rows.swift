import Foundation
import GRDB
import StashCore
import GRDBSQLite

/// The row level under ``ObjectContext``: an object as the values of its columns (what its
/// `INSERT` would bind), the stored row of an id, and writing a row. The context compares
/// rows to detect conflicts and rewrites the relationship columns of rows to turn temporary
/// ids into real ones, so it needs values, not objects.
extension ObjectReader {
    /// The column values `object` encodes to, in declaration order: the model's encoder binds
    /// them to `SELECT ?1, …, ?n`, whose one row hands them back.
    func row<M: Model>(of object: M) throws -> [ObjectStore.StoredValue] {
        let schema = try store.schema(for: M.self)
        let parameters = schema.columns.indices.map { "?\($0 + 1)" }.joined(separator: ", ")
        let statement = try db.cachedStatement(sql: "SELECT \(parameters)")
        let sqlite = statement.sqliteStatement
        defer { sqlite3_reset(sqlite) }
        statement.setUncheckedArguments(StatementArguments())
        try RowEncoder(schema: schema).bind(object, to: sqlite)
        guard sqlite3_step(sqlite) == SQLITE_ROW else {
            throw StashError(.io, "SQLite: could not read back the values of \(schema.modelName)", path: store.url.path, key: schema.modelName)
        }
        return (0..<Int32(schema.columns.count)).map { ObjectStore.StoredValue(DatabaseValue(sqliteStatement: sqlite, index: $0)) }
    }

    /// The stored row of the object of model `M` with this id, or `nil` when there is none.
    func storedRow<M: Model>(_ type: M.Type, id: ObjectStore.StoredValue) throws -> [ObjectStore.StoredValue]? {
        let schema = try store.schema(for: M.self)
        let sql = "SELECT \(schema.selectList) FROM \(SQL.quote(schema.table)) WHERE \(SQL.quote(schema.columns[schema.idColumn].name)) = ?"
        guard let row = try Row.fetchOne(db, sql: sql, arguments: [id.databaseValue]) else { return nil }
        return (0..<row.count).map { ObjectStore.StoredValue(row[$0] as DatabaseValue) }
    }

    /// The objects `query` selects, each with its stored row, from one statement: the
    /// cursor decodes each row, then its columns are read while the statement stands on it.
    func fetchWithRows<M: Model>(_ query: ObjectQuery<M>) throws -> [(object: M, row: [ObjectStore.StoredValue])] {
        let schema = try store.schema(for: M.self)
        let (sql, arguments) = try select(query, schema)
        let statement = try db.cachedStatement(sql: sql)
        let cursor = try ModelCursor<M>(statement: statement, arguments: arguments, schema: schema)
        let sqlite = statement.sqliteStatement
        var result: [(object: M, row: [ObjectStore.StoredValue])] = []
        while let object = try cursor.next() {
            result.append((object, schema.columns.indices.map { ObjectStore.StoredValue(DatabaseValue(sqliteStatement: sqlite, index: Int32($0))) }))
        }
        return result
    }
}

extension ObjectTransaction {
    /// Inserts a row given as column values (declaration order).
    func insert(row: [ObjectStore.StoredValue], _ schema: ModelSchema) throws {
        try execute(schema.insertSQL, row, schema, operation: .write)
    }

    /// Writes every column of the row with its id; returns whether a row had that id.
    func update(row: [ObjectStore.StoredValue], _ schema: ModelSchema) throws -> Bool {
        try execute(schema.updateSQL, row, schema, operation: .write)
        return db.changesCount > 0
    }

    /// Deletes the row with this id (delete rules apply).
    func delete(id: ObjectStore.StoredValue, _ schema: ModelSchema) throws {
        let sql = "DELETE FROM \(SQL.quote(schema.table)) WHERE \(SQL.quote(schema.columns[schema.idColumn].name)) = ?1"
        try execute(sql, [id], schema, operation: .delete)
    }

    private func execute(_ sql: String, _ values: [ObjectStore.StoredValue], _ schema: ModelSchema, operation: ObjectErrors.Operation) throws {
        do {
            try db.cachedStatement(sql: sql).execute(arguments: StatementArguments(values.map(\.databaseValue)))
        } catch let error as DatabaseError {
            throw ObjectErrors.map(error, path: store.url.path, operation: operation, model: schema.modelName)
        }
    }
}
