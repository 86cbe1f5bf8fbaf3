import Foundation
import StashCore

/// An attribute reached through one or more to-one relationships, seen from `Root`:
/// `Person.card.number`, `Card.person.parent.name`. Compare it with a value to filter
/// `Root` objects, or sort by it. An object whose path ends nowhere (no card) passes no
/// comparison, `== nil` included, and sorts as SQL's `NULL` (first ascending).
///
/// ```swift
/// let query = Person.query().filter(Person.card.number == "4400").sorted(Person.card.number)
/// ```
///
/// A filter runs as `IN (SELECT …)` sub-selects, one per step, each using the key's index;
/// a sort as one correlated sub-select per object.
public struct AttributePath<Root: Model, Value: Storable>: Sendable {
    let hops: [RelationHop]
    let attribute: String?
    let described: String

    init<T: Model>(hops: [RelationHop], attribute: KeyPath<T, Value>) {
        self.hops = hops
        self.attribute = PropertyNames.name(of: attribute)
        described = "\(attribute)"
    }

    /// Each step's relation, from `Root` on, and the last target's column.
    func resolve() throws -> ([NamedRelation], String) {
        let relations = try hops.map { try $0.schema().relation(named: $0.name) }
        guard let last = relations.last?.target, let attribute, last.columnIndex[attribute] != nil else {
            let model = relations.last?.target.modelName ?? "\(Root.self)"
            throw StashError(.unknownAttribute, "\(described) is not a stored attribute of \(model)", key: "\(model).\(attribute ?? described)")
        }
        return (relations, attribute)
    }

    /// The `Root` filter whose innermost condition, on the last target's column, is `build`.
    func filter(_ build: (String) -> (String, [ObjectStore.StoredValue])) -> ObjectFilter<Root> {
        do {
            let (relations, column) = try resolve()
            var (sql, arguments) = build(SQL.quote(column))
            for relation in relations.reversed() {
                sql = relation.path.sourceCondition(relation.source, relation.target, targetWhere: sql)
            }
            return ObjectFilter(sql: sql, arguments: arguments)
        } catch {
            return ObjectFilter(sql: "0", unknown: ["\(error)"])
        }
    }

    /// `(SELECT aN."column" FROM t1 AS a1 JOIN … WHERE a1 … = "<root table>"…)`: the value for
    /// each root row, for `ORDER BY`.
    func orderExpression() throws -> String {
        let (relations, column) = try resolve()
        var from = SQL.quote(try ModelSchema.of(Root.self).table)
        var tables: [String] = []
        var conditions: [String] = []
        for (index, relation) in relations.enumerated() {
            let alias = "stash_path\(index + 1)"
            let (table, condition) = relation.path.step(relation.source, relation.target, from: from, alias: alias)
            tables.append(table)
            conditions.append(condition)
            from = alias
        }
        var sql = "(SELECT \(from).\(SQL.quote(column)) FROM \(tables[0])"
        for index in 1..<max(1, tables.count) { sql += " JOIN \(tables[index]) ON \(conditions[index])" }
        return sql + " WHERE \(conditions[0]) LIMIT 1)"
    }

    static func comparison(_ column: String, _ op: String, _ value: ObjectStore.StoredValue) -> (String, [ObjectStore.StoredValue]) {
        guard value == .null else { return ("\(column) \(op) ?", [value]) }
        switch op {
        case "=": return ("\(column) IS NULL", [])
        case "<>": return ("\(column) IS NOT NULL", [])
        default: return ("0", [])
        }
    }
}

extension ObjectQuery {
    /// Sorts by an attribute reached through to-one relationships, after the sort keys given
    /// before.
    ///
    /// ```swift
    /// Person.query().sorted(Person.card.number, .descending)
    /// ```
    public func sorted<V: Storable>(_ path: AttributePath<M, V>, _ direction: Direction = .ascending) -> Self {
        var copy = self
        do {
            copy.sortKeys.append(SortKey(column: nil, expression: try path.orderExpression(), keyPath: path.described, direction: direction))
        } catch {
            copy.sortKeys.append(SortKey(column: nil, keyPath: "\(error)", direction: direction))
        }
        return copy
    }
}

/// The attribute at the end of the path equals the value.
///
/// ```swift
/// Person.query().filter(Person.card.number == "4400")
/// ```
public func == <M: Model, V: Storable & Equatable>(lhs: AttributePath<M, V>, rhs: V) -> ObjectFilter<M> {
    lhs.filter { AttributePath<M, V>.comparison($0, "=", rhs.storedValue) }
}

/// The attribute at the end of the path differs from the value (an object whose path ends
/// nowhere does not pass).
///
/// ```swift
/// Person.query().filter(Person.card.number != "4400")
/// ```
public func != <M: Model, V: Storable & Equatable>(lhs: AttributePath<M, V>, rhs: V) -> ObjectFilter<M> {
    lhs.filter { AttributePath<M, V>.comparison($0, "<>", rhs.storedValue) }
}

/// The attribute at the end of the path is less than the value.
///
/// ```swift
/// Person.query().filter(Person.card.number < "5000")
/// ```
public func < <M: Model, V: Storable & Comparable>(lhs: AttributePath<M, V>, rhs: V) -> ObjectFilter<M> {
    lhs.filter { AttributePath<M, V>.comparison($0, "<", rhs.storedValue) }
}

/// The attribute at the end of the path is at most the value.
///
/// ```swift
/// Card.query().filter(Card.person.age <= 30)
/// ```
public func <= <M: Model, V: Storable & Comparable>(lhs: AttributePath<M, V>, rhs: V) -> ObjectFilter<M> {
    lhs.filter { AttributePath<M, V>.comparison($0, "<=", rhs.storedValue) }
}

/// The attribute at the end of the path is greater than the value.
///
/// ```swift
/// Card.query().filter(Card.person.age > 60)
/// ```
public func > <M: Model, V: Storable & Comparable>(lhs: AttributePath<M, V>, rhs: V) -> ObjectFilter<M> {
    lhs.filter { AttributePath<M, V>.comparison($0, ">", rhs.storedValue) }
}

/// The attribute at the end of the path is at least the value.
///
/// ```swift
/// Card.query().filter(Card.person.parent.age >= 60)
/// ```
public func >= <M: Model, V: Storable & Comparable>(lhs: AttributePath<M, V>, rhs: V) -> ObjectFilter<M> {
    lhs.filter { AttributePath<M, V>.comparison($0, ">=", rhs.storedValue) }
}
