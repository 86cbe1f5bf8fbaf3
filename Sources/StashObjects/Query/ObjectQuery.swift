import Foundation
import StashCore

/// Which objects of a model to fetch, in which order, how many: a filter, sort keys, limit
/// and offset, and relationships to prefetch. A value: build it anywhere, run it with a
/// store, a transaction or a context.
///
/// ```swift
/// let query = Person.query()
///     .filter(.like(\.name, "*Itcast-1*"))
///     .sorted(\.age, .descending)
///     .limit(10)
/// let people = try store.fetch(query)
/// ```
public struct ObjectQuery<M: Model>: Sendable {
    /// Sort direction.
    public enum Direction: Sendable {
        case ascending, descending
    }

    struct SortKey: Sendable {
        var column: String?
        /// An SQL expression sorted on instead of a column (a path across relationships).
        var expression: String?
        var keyPath: String
        var direction: Direction
    }

    var filter: ObjectFilter<M>?
    var sortKeys: [SortKey] = []
    /// Sorted on after every other key (a relationship's objects come in id order).
    var lastSortKey: SortKey?
    var limitCount: Int?
    var offsetCount: Int?

    /// Every object of the model, in no particular order.
    ///
    /// ```swift
    /// let everyone = try store.fetch(ObjectQuery<Person>())
    /// ```
    public init() {}

    /// Keeps the objects passing `filter` (and the filters given before).
    ///
    /// ```swift
    /// Person.query().filter(\.age > 20).filter(.hasPrefix(\.name, "A"))
    /// ```
    public func filter(_ filter: ObjectFilter<M>) -> Self {
        var copy = self
        copy.filter = self.filter.map { $0 && filter } ?? filter
        return copy
    }

    /// Sorts by the attribute, after the sort keys given before.
    ///
    /// ```swift
    /// Person.query().sorted(\.age, .descending).sorted(\.name)
    /// ```
    public func sorted<V: Storable>(_ keyPath: KeyPath<M, V>, _ direction: Direction = .ascending) -> Self {
        var copy = self
        copy.sortKeys.append(SortKey(column: PropertyNames.name(of: keyPath), keyPath: "\(keyPath)", direction: direction))
        return copy
    }

    /// Returns at most `count` objects.
    public func limit(_ count: Int) -> Self {
        var copy = self
        copy.limitCount = max(0, count)
        return copy
    }

    /// Skips the first `count` objects (after sorting).
    public func offset(_ count: Int) -> Self {
        var copy = self
        copy.offsetCount = max(0, count)
        return copy
    }

    /// The `WHERE … ORDER BY … LIMIT …` tail and its arguments, checked against the schema.
    func clauses(_ schema: ModelSchema, ordered: Bool = true) throws -> (String, [ObjectStore.StoredValue]) {
        if let unknown = filter?.unknown.first {
            throw StashError(.unknownAttribute, "\(unknown) is not a stored attribute of \(schema.modelName)", key: unknown)
        }
        var sql = ""
        var arguments: [ObjectStore.StoredValue] = []
        if let filter {
            try checkColumns(schema)
            sql += " WHERE \(filter.sql)"
            arguments = filter.arguments
        }
        guard ordered else { return (sql, arguments) }
        let sortKeys = self.sortKeys + (lastSortKey.map { [$0] } ?? [])
        if !sortKeys.isEmpty {
            let terms = try sortKeys.map { key -> String in
                if let expression = key.expression { return expression + (key.direction == .descending ? " DESC" : "") }
                guard let column = key.column, schema.columnIndex[column] != nil else {
                    throw StashError(.unknownAttribute, "\(key.keyPath) is not a stored attribute of \(schema.modelName)", key: key.keyPath)
                }
                return SQL.quote(column) + (key.direction == .descending ? " DESC" : "")
            }
            sql += " ORDER BY " + terms.joined(separator: ", ")
        }
        if limitCount != nil || offsetCount != nil {
            sql += " LIMIT \(limitCount ?? -1)"
            if let offsetCount { sql += " OFFSET \(offsetCount)" }
        }
        return (sql, arguments)
    }

    /// Filters name properties by key path; a property left out of `CodingKeys` has a name
    /// but no column: catch it here, with the model's name, rather than as an SQL error.
    private func checkColumns(_ schema: ModelSchema) throws {
        for name in Set(filter?.columns ?? []) where schema.columnIndex[name] == nil {
            throw StashError(.unknownAttribute, "\(schema.modelName).\(name) is not stored (it is not in CodingKeys)", key: "\(schema.modelName).\(name)")
        }
    }
}

extension Model {
    /// Every object of this model: the start of a query.
    ///
    /// ```swift
    /// let query = Person.query().filter(\.age > 20).sorted(\.age, .descending)
    /// ```
    public static func query() -> ObjectQuery<Self> { ObjectQuery() }
}
