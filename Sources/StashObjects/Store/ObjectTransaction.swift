import Foundation
import GRDB
import StashCore

/// One write transaction, inside ``ObjectStore/write(_:)-2cbaf``: reads see its own writes; all
/// of it commits when the closure returns, none of it when the closure throws.
///
/// ```swift
/// try store.write { tx in
///     var ada = try tx.insert(Person(id: nil, name: "Ada", age: 36))
///     ada.age += 1
///     try tx.update(ada)
///     try tx.updateAll(Person.query().filter(\.age < 18), .set(\.age, 18))
///     try tx.deleteAll(Person.query().filter(.hasPrefix(\.name, "Test")))
/// }
/// ```
public final class ObjectTransaction: ObjectReader {
    private var encoders: [ObjectIdentifier: RowEncoder] = [:]

    func encoder(_ schema: ModelSchema) -> RowEncoder {
        if let encoder = encoders[schema.type] { return encoder }
        let encoder = RowEncoder(schema: schema)
        encoders[schema.type] = encoder
        return encoder
    }

    private func run<M: Model>(_ sql: String, _ object: M, _ schema: ModelSchema, operation: ObjectErrors.Operation = .write) throws {
        let statement = try db.cachedStatement(sql: sql)
        statement.setUncheckedArguments(StatementArguments())
        try encoder(schema).bind(object, to: statement.sqliteStatement)
        do {
            try statement.execute()
        } catch let error as DatabaseError {
            throw ObjectErrors.map(error, path: store.url.path, operation: operation, model: schema.modelName)
        }
    }

    private func assigningID<M: Model>(_ object: M, _ schema: ModelSchema) -> M {
        guard schema.isAutoIncremented, object.id.storedValue == .null, let id = M.ID.assigned(rowID: db.lastInsertedRowID) else { return object }
        var inserted = object
        inserted.id = id
        return inserted
    }

    /// Inserts a new object; returns it with its id when SQLite assigns it.
    ///
    /// ```swift
    /// let ada = try tx.insert(Person(id: nil, name: "Ada", age: 36))   // ada.id != nil
    /// ```
    ///
    /// - throws: ``StashCore/StashError/Code/uniqueViolation`` (an object with this id or unique value
    ///   exists), ``StashCore/StashError/Code/missingRelatedObject`` (a relationship points nowhere).
    @discardableResult
    public func insert<M: Model>(_ object: M) throws -> M {
        let schema = try store.schema(for: M.self)
        try run(schema.insertSQL, object, schema)
        return assigningID(object, schema)
    }

    /// Inserts the objects in order; returns them with their ids.
    ///
    /// ```swift
    /// let people = try tx.insert(contentsOf: names.map { Person(id: nil, name: $0, age: 0) })
    /// ```
    @discardableResult
    public func insert<M: Model>(contentsOf objects: some Sequence<M>) throws -> [M] {
        try objects.map { try insert($0) }
    }

    /// Writes every attribute of an object that exists.
    ///
    /// ```swift
    /// ada.age += 1
    /// try tx.update(ada)
    /// ```
    ///
    /// - throws: ``/StashCore/StashError/Code/notFound`` when no object has its id.
    public func update<M: Model>(_ object: M) throws {
        let schema = try store.schema(for: M.self)
        try run(schema.updateSQL, object, schema)
        if db.changesCount == 0 {
            throw StashError(.notFound, "\(schema.modelName) with id \(object.id.storedValue) does not exist; nothing was written", key: "\(schema.modelName).id")
        }
    }

    /// Inserts the object, or writes every attribute of the one with its id.
    ///
    /// ```swift
    /// try tx.upsert(Tag(id: "swift", label: "Swift"))
    /// ```
    @discardableResult
    public func upsert<M: Model>(_ object: M) throws -> M {
        let schema = try store.schema(for: M.self)
        if schema.isAutoIncremented, object.id.storedValue == .null {
            try run(schema.insertSQL, object, schema)
        } else {
            try run(schema.upsertSQL, object, schema)
        }
        return assigningID(object, schema)
    }

    /// ``upsert(_:)``: inserts a new object, updates an existing one.
    ///
    /// ```swift
    /// let saved = try tx.save(person)
    /// ```
    @discardableResult
    public func save<M: Model>(_ object: M) throws -> M {
        try upsert(object)
    }

    /// Deletes the object with this id (relationships apply their delete rules); returns
    /// whether there was one.
    ///
    /// ```swift
    /// try tx.delete(Person.self, id: 1)
    /// ```
    ///
    /// - throws: ``StashCore/StashError/Code/deleteDenied`` when a `deny` relationship still points
    ///   at it (nothing deleted).
    @discardableResult
    public func delete<M: Model>(_ type: M.Type, id: M.ID) throws -> Bool {
        let schema = try store.schema(for: M.self)
        let idName = SQL.quote(schema.columns[schema.idColumn].name)
        do {
            try db.execute(sql: "DELETE FROM \(SQL.quote(schema.table)) WHERE \(idName) = ?", arguments: [id.storedValue.databaseValue])
        } catch let error as DatabaseError {
            throw ObjectErrors.map(error, path: store.url.path, operation: .delete, model: schema.modelName)
        }
        return db.changesCount > 0
    }

    /// Deletes the object (by its id); returns whether it existed.
    ///
    /// ```swift
    /// try tx.delete(ada)
    /// ```
    @discardableResult
    public func delete<M: Model>(_ object: M) throws -> Bool {
        try delete(M.self, id: object.id)
    }

    /// Deletes every object `query` selects without loading them; returns how many.
    ///
    /// ```swift
    /// let removed = try tx.deleteAll(Person.query().filter(\.age < 0))
    /// ```
    @discardableResult
    public func deleteAll<M: Model>(_ query: ObjectQuery<M>) throws -> Int {
        let schema = try store.schema(for: M.self)
        let idName = SQL.quote(schema.columns[schema.idColumn].name)
        let (select, arguments) = try bounded(query, schema)
        do {
            try db.execute(sql: "DELETE FROM \(SQL.quote(schema.table)) WHERE \(idName) IN (\(select))", arguments: StatementArguments(arguments.map(\.databaseValue)))
        } catch let error as DatabaseError {
            throw ObjectErrors.map(error, path: store.url.path, operation: .delete, model: schema.modelName)
        }
        return db.changesCount
    }

    /// Sets attributes of every object `query` selects without loading them; returns how
    /// many changed.
    ///
    /// ```swift
    /// try tx.updateAll(Person.query().filter(\.age < 18), .set(\.age, 18), .set(\.nickname, nil))
    /// ```
    @discardableResult
    public func updateAll<M: Model>(_ query: ObjectQuery<M>, _ assignments: ObjectAssignment<M>...) throws -> Int {
        let schema = try store.schema(for: M.self)
        guard !assignments.isEmpty else { return 0 }
        var sets: [String] = []
        var values: [ObjectStore.StoredValue] = []
        for assignment in assignments {
            guard let column = assignment.column, schema.columnIndex[column] != nil else {
                throw StashError(.unknownAttribute, "\(assignment.keyPath) is not a stored attribute of \(schema.modelName)", key: assignment.keyPath)
            }
            sets.append("\(SQL.quote(column)) = ?")
            values.append(assignment.value)
        }
        let idName = SQL.quote(schema.columns[schema.idColumn].name)
        let (select, arguments) = try bounded(query, schema)
        do {
            try db.execute(
                sql: "UPDATE \(SQL.quote(schema.table)) SET \(sets.joined(separator: ", ")) WHERE \(idName) IN (\(select))",
                arguments: StatementArguments((values + arguments).map(\.databaseValue))
            )
        } catch let error as DatabaseError {
            throw ObjectErrors.map(error, path: store.url.path, model: schema.modelName)
        }
        return db.changesCount
    }

    private func bounded<M: Model>(_ query: ObjectQuery<M>, _ schema: ModelSchema) throws -> (String, [ObjectStore.StoredValue]) {
        let idName = SQL.quote(schema.columns[schema.idColumn].name)
        let (clauses, arguments) = try query.clauses(schema)
        return ("SELECT \(idName) FROM \(SQL.quote(schema.table))\(clauses)", arguments)
    }
}

/// One attribute set by ``ObjectTransaction/updateAll(_:_:)``.
///
/// ```swift
/// .set(\.age, 18)
/// ```
public struct ObjectAssignment<M: Model>: Sendable {
    var column: String?
    var keyPath: String
    var value: ObjectStore.StoredValue

    /// Sets the attribute to `value` in every selected object.
    public static func set<V: Storable>(_ keyPath: KeyPath<M, V>, _ value: V) -> Self {
        Self(column: PropertyNames.name(of: keyPath), keyPath: "\(keyPath)", value: value.storedValue)
    }
}
