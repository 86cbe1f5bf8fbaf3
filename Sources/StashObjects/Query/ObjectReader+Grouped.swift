import Foundation
import GRDB
import StashCore

extension ObjectReader {
    /// How many objects `query` selects in each group of equal `key` values (Core Data's
    /// `propertiesToGroupBy` with a count): one `GROUP BY` statement. Objects whose key is
    /// `NULL` form the `nil` group of an optional key.
    ///
    /// ```swift
    /// let cardsPerOwner = try reader.count(Card.query(), groupedBy: \.ownerID)   // [Int64: Int]
    /// ```
    public func count<M: Model, K: Storable & Hashable>(_ query: ObjectQuery<M>, groupedBy key: KeyPath<M, K>) throws -> [K: Int] {
        try grouped("COUNT(*)", query, key).mapValues { Int(storedValue: $0) ?? 0 }
    }

    /// The sum of the attribute in each group of equal `key` values among the objects
    /// `query` selects.
    ///
    /// ```swift
    /// let totals = try reader.sum(\Order.amount, in: Order.query(), groupedBy: \.customerID)   // [Int64: Double]
    /// ```
    public func sum<M: Model, V: Storable & Numeric, K: Storable & Hashable>(_ attribute: KeyPath<M, V>, in query: ObjectQuery<M> = ObjectQuery(), groupedBy key: KeyPath<M, K>) throws -> [K: Double] {
        try grouped("TOTAL(\(SQL.quote(store.schema(for: M.self).column(attribute))))", query, key).mapValues { Double(storedValue: $0) ?? 0 }
    }

    /// The average of the attribute in each group of equal `key` values.
    ///
    /// ```swift
    /// let ageByCity = try reader.average(\Person.age, in: Person.query(), groupedBy: \.city)
    /// ```
    public func average<M: Model, V: Storable & Numeric, K: Storable & Hashable>(_ attribute: KeyPath<M, V>, in query: ObjectQuery<M> = ObjectQuery(), groupedBy key: KeyPath<M, K>) throws -> [K: Double] {
        try grouped("AVG(\(SQL.quote(store.schema(for: M.self).column(attribute))))", query, key).compactMapValues { Double(storedValue: $0) }
    }

    /// The smallest value of the attribute in each group of equal `key` values.
    ///
    /// ```swift
    /// let youngest = try reader.min(\Person.age, in: Person.query(), groupedBy: \.city)
    /// ```
    public func min<M: Model, V: Storable & Comparable, K: Storable & Hashable>(_ attribute: KeyPath<M, V>, in query: ObjectQuery<M> = ObjectQuery(), groupedBy key: KeyPath<M, K>) throws -> [K: V] {
        try grouped("MIN(\(SQL.quote(store.schema(for: M.self).column(attribute))))", query, key).compactMapValues { V(storedValue: $0) }
    }

    /// The largest value of the attribute in each group of equal `key` values.
    ///
    /// ```swift
    /// let oldest = try reader.max(\Person.age, in: Person.query(), groupedBy: \.city)
    /// ```
    public func max<M: Model, V: Storable & Comparable, K: Storable & Hashable>(_ attribute: KeyPath<M, V>, in query: ObjectQuery<M> = ObjectQuery(), groupedBy key: KeyPath<M, K>) throws -> [K: V] {
        try grouped("MAX(\(SQL.quote(store.schema(for: M.self).column(attribute))))", query, key).compactMapValues { V(storedValue: $0) }
    }

    /// `SELECT key, function FROM (the query's rows) GROUP BY key`: the query's filter, and
    /// its limit and offset in its order, apply before grouping.
    private func grouped<M: Model, K: Storable & Hashable>(_ function: String, _ query: ObjectQuery<M>, _ key: KeyPath<M, K>) throws -> [K: ObjectStore.StoredValue] {
        let schema = try store.schema(for: M.self)
        let column = SQL.quote(try schema.column(key))
        let windowed = query.limitCount != nil || query.offsetCount != nil
        let (clauses, arguments) = try query.clauses(schema, ordered: windowed)
        let sql = "SELECT \(column), \(function) FROM (SELECT * FROM \(SQL.quote(schema.table))\(clauses)) GROUP BY \(column)"
        var result: [K: ObjectStore.StoredValue] = [:]
        for row in try Row.fetchAll(db, sql: sql, arguments: StatementArguments(arguments.map(\.databaseValue))) {
            let stored = ObjectStore.StoredValue(row[0] as DatabaseValue)
            guard let group = K(storedValue: stored) else {
                throw StashError(.typeMismatch, "\(schema.modelName): grouped value \(stored) does not fit \(K.self)", key: "\(schema.modelName).\(row.columnNames.first ?? "")")
            }
            result[group] = ObjectStore.StoredValue(row[1] as DatabaseValue)
        }
        return result
    }
}
