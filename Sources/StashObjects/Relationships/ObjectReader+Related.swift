import Foundation
import GRDB
import StashCore
import GRDBSQLite

extension ObjectReader {
    /// The objects of `target` related to `object`, through whichever relationship links the
    /// two models (to-one, to-many or many-to-many, either direction), read now: fetching an
    /// object never reads its relationships until asked.
    ///
    /// ```swift
    /// let person = try reader.object(Person.self, id: 1)!
    /// let cards = try reader.related(Card.self, of: person)      // to-many
    /// let owner = try reader.related(Person.self, of: cards[0]).first   // to-one
    /// ```
    public func related<M: Model, T: Model>(_ target: T.Type, of object: M) throws -> [T] {
        let source = try store.schema(for: M.self)
        let targetSchema = try store.schema(for: T.self)
        let path = try RelationPath.between(source, targetSchema)
        let sql = path.selectRelated(source, targetSchema, sourceIDs: "?") + " ORDER BY t.\(SQL.quote(targetSchema.columns[targetSchema.idColumn].name))"
        return try relatedRows(sql: sql, arguments: [object.id.storedValue], schema: targetSchema).map(\.0)
    }

    /// The objects `query` selects, each with its related `target` objects in id order, in two
    /// SQL statements whatever the number of objects (no statement per object), through
    /// whichever relationship links the two models. For relationships declared by name,
    /// ``ObjectQuery/including(_:_:)`` reads a whole graph instead.
    ///
    /// ```swift
    /// for (person, cards) in try reader.fetch(Person.query().sorted(\.name), including: Card.self) {
    ///     print(person.name, cards.map(\.number))
    /// }
    /// ```
    public func fetch<M: Model, T: Model>(_ query: ObjectQuery<M>, including target: T.Type) throws -> [(object: M, related: [T])] {
        let source = try store.schema(for: M.self)
        let targetSchema = try store.schema(for: T.self)
        let path = try RelationPath.between(source, targetSchema)
        let objects = try fetch(query)
        let (clauses, arguments) = try query.clauses(source)
        let ids = "SELECT \(SQL.quote(source.columns[source.idColumn].name)) FROM \(SQL.quote(source.table))\(clauses)"
        let sql = path.selectRelated(source, targetSchema, sourceIDs: ids) + " ORDER BY t.\(SQL.quote(targetSchema.columns[targetSchema.idColumn].name))"
        var groups: [ObjectStore.StoredValue: [T]] = [:]
        for (related, key) in try relatedRows(sql: sql, arguments: arguments, schema: targetSchema) as [(T, ObjectStore.StoredValue)] {
            groups[key, default: []].append(related)
        }
        return objects.map { (object: $0, related: groups[$0.id.storedValue] ?? []) }
    }

    func relatedRows<T: Model>(sql: String, arguments: [ObjectStore.StoredValue], schema: ModelSchema) throws -> [(T, ObjectStore.StoredValue)] {
        let statement = try db.cachedStatement(sql: sql)
        let cursor = try KeyedModelCursor<T>(statement: statement, arguments: arguments, schema: schema)
        var rows: [(T, ObjectStore.StoredValue)] = []
        try cursor.forEach { rows.append($0) }
        return rows
    }
}

/// ``ModelCursor`` with one more column after the model's: the key of the object it
/// relates to.
final class KeyedModelCursor<M: Model>: DatabaseCursor {
    typealias Element = (M, ObjectStore.StoredValue)
    var _isDone = false
    let _statement: Statement
    let decoder: RowDecoder
    let keyColumn: Int32

    init(statement: Statement, arguments: [ObjectStore.StoredValue], schema: ModelSchema) throws {
        _statement = statement
        decoder = RowDecoder(schema: schema)
        keyColumn = Int32(schema.columns.count)
        try statement.setArguments(StatementArguments(arguments.map(\.databaseValue)))
    }

    deinit {
        sqlite3_reset(_statement.sqliteStatement)
    }

    func _element(sqliteStatement: SQLiteStatement) throws -> (M, ObjectStore.StoredValue) {
        let object = try decoder.decode(M.self, from: sqliteStatement)
        let key: ObjectStore.StoredValue
        switch sqlite3_column_type(sqliteStatement, keyColumn) {
        case SQLITE_INTEGER: key = .integer(sqlite3_column_int64(sqliteStatement, keyColumn))
        case SQLITE_FLOAT: key = .real(sqlite3_column_double(sqliteStatement, keyColumn))
        case SQLITE_TEXT: key = .text(decoder.text(keyColumn))
        case SQLITE_NULL: key = .null
        default: key = .blob(Data(bytes: sqlite3_column_blob(sqliteStatement, keyColumn), count: Int(sqlite3_column_bytes(sqliteStatement, keyColumn))))
        }
        return (object, key)
    }
}

extension ObjectTransaction {
    /// Links two objects of a many-to-many relationship (no effect when already linked).
    ///
    /// ```swift
    /// try tx.link(article, tag)
    /// ```
    ///
    /// - throws: ``StashCore/StashError/Code/missingRelatedObject`` when either does not exist.
    public func link<A: Model, B: Model>(_ first: A, _ second: B) throws {
        try changeLink(first, second, insert: true)
    }

    /// Removes the link between two objects of a many-to-many relationship.
    ///
    /// ```swift
    /// try tx.unlink(article, tag)
    /// ```
    public func unlink<A: Model, B: Model>(_ first: A, _ second: B) throws {
        try changeLink(first, second, insert: false)
    }

    private func changeLink<A: Model, B: Model>(_ first: A, _ second: B, insert: Bool) throws {
        let source = try store.schema(for: A.self)
        let target = try store.schema(for: B.self)
        guard case .join(let table, let sourceColumn, let targetColumn) = try RelationPath.between(source, target) else {
            throw StashError(.unknownAttribute, "\(A.self) and \(B.self) are not linked by a many-to-many relationship", key: "\(A.self).\(B.self)")
        }
        let sql = insert
            ? "INSERT OR IGNORE INTO \(SQL.quote(table))(\(SQL.quote(sourceColumn)), \(SQL.quote(targetColumn))) VALUES (?, ?)"
            : "DELETE FROM \(SQL.quote(table)) WHERE \(SQL.quote(sourceColumn)) = ? AND \(SQL.quote(targetColumn)) = ?"
        do {
            try db.execute(sql: sql, arguments: [first.id.storedValue.databaseValue, second.id.storedValue.databaseValue])
        } catch let error as DatabaseError {
            throw ObjectErrors.map(error, path: store.url.path, model: "\(A.self)")
        }
    }
}
