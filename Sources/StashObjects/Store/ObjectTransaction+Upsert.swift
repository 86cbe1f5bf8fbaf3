import Foundation
import GRDB
import StashCore
import GRDBSQLite

extension ObjectTransaction {
    /// Inserts the object, or, when an object with the same values of the unique
    /// attributes `keys` exists, updates that one (its id stays): Core Data's merge by
    /// uniqueness constraint. Returns the object with the stored id. One statement
    /// (`INSERT … ON CONFLICT(…) DO UPDATE … RETURNING`).
    ///
    /// ```swift
    /// // Person declares .unique(\.name)
    /// let ada = try tx.upsert(Person(id: nil, name: "Ada", age: 37), onConflict: \.name)   // ada.id: the existing row's
    /// ```
    ///
    /// - throws: ``StashCore/StashError/Code/invalidSchema`` when `keys` are not declared unique
    ///   together (`unique(...)`, or the key of a one-to-one), before anything is written;
    ///   ``StashCore/StashError/Code/uniqueViolation`` when another unique attribute collides.
    @discardableResult
    public func upsert<M: Model>(_ object: M, onConflict keys: PartialKeyPath<M>...) throws -> M {
        let schema = try store.schema(for: M.self)
        let columns = try keys.map { try schema.column($0) }
        let uniqueSets = schema.uniqueColumns.map(Set.init) + schema.relationships.compactMap { relationship -> Set<String>? in
            guard relationship.isUniqueKey, case .toOne(let column) = relationship.kind else { return nil }
            return [column]
        } + [[schema.columns[schema.idColumn].name]]
        guard !columns.isEmpty, uniqueSets.contains(Set(columns)) else {
            let key = "\(schema.modelName).\(columns.joined(separator: ","))"
            throw StashError(.invalidSchema, "\(key) is not declared unique: add .unique(\(columns.map { "\\.\($0)" }.joined(separator: ", "))) to the entity", key: key)
        }
        let idName = schema.columns[schema.idColumn].name
        let quoted = schema.columns.map { SQL.quote($0.name) }
        let updated = schema.columns.indices.filter { schema.columns[$0].name != idName && !columns.contains(schema.columns[$0].name) }
        let action = updated.isEmpty
            ? "UPDATE SET \(quoted[schema.idColumn]) = \(quoted[schema.idColumn])"
            : "UPDATE SET " + updated.map { "\(quoted[$0]) = excluded.\(quoted[$0])" }.joined(separator: ", ")
        let sql = schema.insertSQL + " ON CONFLICT(\(columns.map(SQL.quote).joined(separator: ", "))) DO \(action) RETURNING \(quoted[schema.idColumn])"
        let statement = try db.cachedStatement(sql: sql)
        statement.setUncheckedArguments(StatementArguments())
        try encoder(schema).bind(object, to: statement.sqliteStatement)
        let stored: ObjectStore.StoredValue?
        do {
            stored = try ReturnedValueCursor(statement: statement).next()
        } catch let error as DatabaseError {
            throw ObjectErrors.map(error, path: store.url.path, model: schema.modelName)
        }
        var saved = object
        if let stored, let id = M.ID(storedValue: stored) { saved.id = id }
        return saved
    }
}

/// Steps a statement whose arguments are already bound and reads its first column: what
/// `RETURNING` hands back. GRDB steps it, so its observation sees the write.
final class ReturnedValueCursor: DatabaseCursor {
    typealias Element = ObjectStore.StoredValue
    var _isDone = false
    let _statement: Statement

    init(statement: Statement) {
        _statement = statement
    }

    deinit {
        sqlite3_reset(_statement.sqliteStatement)
    }

    func _element(sqliteStatement: SQLiteStatement) throws -> ObjectStore.StoredValue {
        ObjectStore.StoredValue(DatabaseValue(sqliteStatement: sqliteStatement, index: 0))
    }
}
