import Foundation
import GRDB
import StashCore

/// Read access to a store inside ``ObjectStore/read(_:)-21hx0`` (a consistent snapshot) or a
/// write transaction. Valid only during that call: do not keep it.
///
/// ```swift
/// try store.read { reader in
///     let ada = try reader.object(Person.self, id: 1)
///     let count = try reader.count(Person.query().filter(\.age > 20))
/// }
/// ```
public class ObjectReader {
    let db: Database
    let store: ObjectStore

    init(db: Database, store: ObjectStore) {
        self.db = db
        self.store = store
    }

    func select<M: Model>(_ query: ObjectQuery<M>, _ schema: ModelSchema) throws -> (String, [ObjectStore.StoredValue]) {
        let (clauses, arguments) = try query.clauses(schema)
        return ("SELECT \(schema.selectList) FROM \(SQL.quote(schema.table))\(clauses)", arguments)
    }

    func fetch<M: Model>(sql: String, arguments: [ObjectStore.StoredValue], schema: ModelSchema) throws -> [M] {
        let statement = try db.cachedStatement(sql: sql)
        let cursor = try ModelCursor<M>(statement: statement, arguments: arguments, schema: schema)
        var objects: [M] = []
        try cursor.forEach { objects.append($0) }
        return objects
    }

    /// The objects `query` selects, in its order.
    ///
    /// ```swift
    /// let people = try reader.fetch(Person.query().filter(.like(\.name, "*Itcast-1*")).sorted(\.age, .descending))
    /// ```
    ///
    /// - throws: ``StashCore/StashError/Code/unknownAttribute`` for a filter or sort on an attribute
    ///   that is not stored; ``/StashCore/StashError/Code/typeMismatch`` naming model and attribute when
    ///   a stored value does not fit (another program wrote it).
    public func fetch<M: Model>(_ query: ObjectQuery<M>) throws -> [M] {
        let schema = try store.schema(for: M.self)
        let (sql, arguments) = try select(query, schema)
        return try fetch(sql: sql, arguments: arguments, schema: schema)
    }

    /// The first object `query` selects, or `nil`.
    ///
    /// ```swift
    /// let oldest = try reader.fetchOne(Person.query().sorted(\.age, .descending))
    /// ```
    public func fetchOne<M: Model>(_ query: ObjectQuery<M>) throws -> M? {
        try fetch(query.limit(1)).first
    }

    /// The object with this id, or `nil`.
    ///
    /// ```swift
    /// let ada = try reader.object(Person.self, id: 1)
    /// ```
    public func object<M: Model>(_ type: M.Type, id: M.ID) throws -> M? {
        let schema = try store.schema(for: M.self)
        let sql = "SELECT \(schema.selectList) FROM \(SQL.quote(schema.table)) WHERE \(SQL.quote(schema.columns[schema.idColumn].name)) = ?"
        let objects: [M] = try fetch(sql: sql, arguments: [id.storedValue], schema: schema)
        return objects.first
    }

    /// The ids of the objects `query` selects, in its order, without decoding the objects.
    ///
    /// ```swift
    /// let ids = try reader.ids(Person.query().filter(\.age > 20))
    /// ```
    public func ids<M: Model>(_ query: ObjectQuery<M>) throws -> [M.ID] {
        let schema = try store.schema(for: M.self)
        let (clauses, arguments) = try query.clauses(schema)
        let idName = schema.columns[schema.idColumn].name
        let rows = try Row.fetchAll(db, sql: "SELECT \(SQL.quote(idName)) FROM \(SQL.quote(schema.table))\(clauses)", arguments: StatementArguments(arguments.map(\.databaseValue)))
        return try rows.map { row in
            let stored = ObjectStore.StoredValue(row[0] as DatabaseValue)
            guard let id = M.ID(storedValue: stored) else {
                throw StashError(.typeMismatch, "\(schema.modelName).\(idName): stored id \(stored) does not fit \(M.ID.self)", key: "\(schema.modelName).\(idName)")
            }
            return id
        }
    }

    /// How many objects `query` selects (its limit and offset apply).
    ///
    /// ```swift
    /// let adults = try reader.count(Person.query().filter(\.age >= 18))
    /// ```
    public func count<M: Model>(_ query: ObjectQuery<M>) throws -> Int {
        let schema = try store.schema(for: M.self)
        let (select, arguments) = try self.select(query, schema)
        return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM (\(select))", arguments: StatementArguments(arguments.map(\.databaseValue))) ?? 0
    }

    /// Whether `query` selects at least one object.
    ///
    /// ```swift
    /// if try reader.exists(Person.query().filter(\.name == "Ada")) { … }
    /// ```
    public func exists<M: Model>(_ query: ObjectQuery<M>) throws -> Bool {
        let schema = try store.schema(for: M.self)
        let (select, arguments) = try self.select(query, schema)
        return try Bool.fetchOne(db, sql: "SELECT EXISTS (\(select))", arguments: StatementArguments(arguments.map(\.databaseValue))) ?? false
    }

    func aggregate<M: Model>(_ function: String, _ keyPath: PartialKeyPath<M>, _ query: ObjectQuery<M>) throws -> ObjectStore.StoredValue {
        let schema = try store.schema(for: M.self)
        let column = try schema.column(keyPath)
        // With a limit or offset, the query's window (in its order) is selected first and
        // the function runs over that subquery; without one, the plain form needs no sort.
        let windowed = query.limitCount != nil || query.offsetCount != nil
        let (clauses, arguments) = try query.clauses(schema, ordered: windowed)
        let quoted = SQL.quote(column)
        let table = SQL.quote(schema.table)
        let sql = windowed
            ? "SELECT \(function)(\(quoted)) FROM (SELECT \(quoted) FROM \(table)\(clauses))"
            : "SELECT \(function)(\(quoted)) FROM \(table)\(clauses)"
        let value = try DatabaseValue.fetchOne(db, sql: sql, arguments: StatementArguments(arguments.map(\.databaseValue)))
        return ObjectStore.StoredValue(value ?? .null)
    }

    /// The smallest value of the attribute among the objects `query` selects, or `nil`.
    /// Like every aggregate here, it honours the query's filter, and its limit and offset
    /// in its sort order (``count(_:)`` does too).
    ///
    /// ```swift
    /// let youngest = try reader.min(\Person.age, in: Person.query())
    /// ```
    public func min<M: Model, V: Storable & Comparable>(_ keyPath: KeyPath<M, V>, in query: ObjectQuery<M> = ObjectQuery()) throws -> V? {
        V(storedValue: try aggregate("MIN", keyPath, query))
    }

    /// The largest value of the attribute among the objects `query` selects, or `nil`.
    public func max<M: Model, V: Storable & Comparable>(_ keyPath: KeyPath<M, V>, in query: ObjectQuery<M> = ObjectQuery()) throws -> V? {
        V(storedValue: try aggregate("MAX", keyPath, query))
    }

    /// The sum of the numeric attribute among the objects `query` selects (0 when none).
    ///
    /// ```swift
    /// let total = try reader.sum(\Order.amount, in: Order.query().filter(\.paid == true))
    /// ```
    public func sum<M: Model, V: Storable & Numeric>(_ keyPath: KeyPath<M, V>, in query: ObjectQuery<M> = ObjectQuery()) throws -> Double {
        Double(storedValue: try aggregate("TOTAL", keyPath, query)) ?? 0
    }

    /// The average of the numeric attribute among the objects `query` selects, or `nil`
    /// when none.
    public func average<M: Model, V: Storable & Numeric>(_ keyPath: KeyPath<M, V>, in query: ObjectQuery<M> = ObjectQuery()) throws -> Double? {
        Double(storedValue: try aggregate("AVG", keyPath, query))
    }
}
