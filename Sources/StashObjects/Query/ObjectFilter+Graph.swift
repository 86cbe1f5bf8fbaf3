import Foundation
import StashCore

extension ObjectFilter {
    /// The object's to-one relationship reaches an object passing `filter` (one with no
    /// related object does not pass).
    ///
    /// ```swift
    /// Person.query().filter(.related(\.card, where: .hasPrefix(\.number, "44")))
    /// ```
    public static func related<T: Model>(_ relationship: KeyPath<M.Type, ToOne<M, T>>, where filter: ObjectFilter<T>) -> Self {
        across(M.self[keyPath: relationship].hop, filter) { path, source, target, targetWhere in
            path.sourceCondition(source, target, targetWhere: targetWhere)
        }
    }

    /// ANY: at least one object of the to-many relationship passes `filter`.
    ///
    /// ```swift
    /// Person.query().filter(.any(\.cards, where: \.number == "4400"))
    /// ```
    public static func any<T: Model>(_ relationship: KeyPath<M.Type, ToMany<M, T>>, where filter: ObjectFilter<T>) -> Self {
        across(M.self[keyPath: relationship].hop, filter) { path, source, target, targetWhere in
            path.sourceCondition(source, target, targetWhere: targetWhere)
        }
    }

    /// ALL: every object of the to-many relationship passes `filter`; an object with none
    /// passes (as `NSPredicate`'s `ALL`). An attribute that is `NULL` fails the filter.
    ///
    /// ```swift
    /// Person.query().filter(.all(\.cards, where: .hasPrefix(\.number, "44")))
    /// ```
    public static func all<T: Model>(_ relationship: KeyPath<M.Type, ToMany<M, T>>, where filter: ObjectFilter<T>) -> Self {
        across(M.self[keyPath: relationship].hop, filter) { path, source, target, targetWhere in
            let (column, select) = path.sourceKeys(source, target, targetWhere: "(\(targetWhere)) IS NOT 1")
            return "\(column) NOT IN (\(select))"
        }
    }

    /// A condition on `M` built by `condition` from the step's path and the target filter's
    /// SQL, with the target filter's arguments and unknown attributes.
    static func across<T: Model>(_ hop: RelationHop, _ filter: ObjectFilter<T>, _ condition: (RelationPath, ModelSchema, ModelSchema, String) -> String) -> Self {
        do {
            let relation = try hop.schema().relation(named: hop.name)
            let unknown = filter.columns.filter { relation.target.columnIndex[$0] == nil }.map { "\(T.self).\($0)" }
            let sql = condition(relation.path, relation.source, relation.target, filter.sql)
            return Self(sql: sql, arguments: filter.arguments, unknown: filter.unknown + unknown)
        } catch {
            return Self(sql: "0", unknown: ["\(error)"])
        }
    }
}

/// The number of related objects of a to-many relationship, ``count(_:where:)``: compare it
/// with an `Int` to get a filter (`.count(\\.cards) > 3`, written where a filter goes).
///
/// ```swift
/// Person.query().filter(.count(\.cards) >= 2 && .count(\.cards) < 5)
/// ```
public struct RelatedCount<M: Model>: Sendable {
    let build: @Sendable (String, Int, Bool) -> ObjectFilter<M>

    /// How many objects of the to-many relationship pass `filter` (all of them without
    /// one): compare it with a number.
    ///
    /// ```swift
    /// Person.query().filter(.count(\.cards) > 3)
    /// Person.query().filter(.count(\.cards, where: .hasPrefix(\.number, "44")) == 0)
    /// ```
    public static func count<T: Model>(_ relationship: KeyPath<M.Type, ToMany<M, T>>, where filter: ObjectFilter<T> = .all) -> Self {
        let hop = M.self[keyPath: relationship].hop
        return RelatedCount { op, count, zeroPasses in
            ObjectFilter<M>.across(hop, filter) { path, source, target, targetWhere in
                let (column, select) = path.sourceKeys(source, target, targetWhere: targetWhere, having: "COUNT(*) \(op) \(count)")
                guard zeroPasses else { return "\(column) IN (\(select))" }
                // Objects with no related object passing the filter are in no group.
                let (_, any) = path.sourceKeys(source, target, targetWhere: targetWhere)
                return "(\(column) IN (\(select)) OR \(column) NOT IN (\(any)))"
            }
        }
    }

    func compare(_ op: String, _ count: Int, zeroPasses: Bool) -> ObjectFilter<M> {
        build(op, count, zeroPasses)
    }

    /// Exactly `rhs` related objects.
    ///
    /// ```swift
    /// Person.query().filter(.count(\.cards) == 0)
    /// ```
    public static func == (lhs: Self, rhs: Int) -> ObjectFilter<M> { lhs.compare("=", rhs, zeroPasses: rhs == 0) }
    /// Not exactly `rhs` related objects.
    ///
    /// ```swift
    /// Person.query().filter(.count(\.cards) != 1)
    /// ```
    public static func != (lhs: Self, rhs: Int) -> ObjectFilter<M> { lhs.compare("<>", rhs, zeroPasses: rhs != 0) }
    /// Fewer than `rhs`.
    ///
    /// ```swift
    /// Person.query().filter(.count(\.children) < 2)
    /// ```
    public static func < (lhs: Self, rhs: Int) -> ObjectFilter<M> { lhs.compare("<", rhs, zeroPasses: 0 < rhs) }
    /// At most `rhs`.
    ///
    /// ```swift
    /// Person.query().filter(.count(\.clubs) <= 3)
    /// ```
    public static func <= (lhs: Self, rhs: Int) -> ObjectFilter<M> { lhs.compare("<=", rhs, zeroPasses: 0 <= rhs) }
    /// More than `rhs`.
    ///
    /// ```swift
    /// Person.query().filter(.count(\.cards) > 3)
    /// ```
    public static func > (lhs: Self, rhs: Int) -> ObjectFilter<M> { lhs.compare(">", rhs, zeroPasses: 0 > rhs) }
    /// At least `rhs`.
    ///
    /// ```swift
    /// Person.query().filter(.count(\.cards, where: \.number >= "9") >= 1)
    /// ```
    public static func >= (lhs: Self, rhs: Int) -> ObjectFilter<M> { lhs.compare(">=", rhs, zeroPasses: 0 >= rhs) }
}
