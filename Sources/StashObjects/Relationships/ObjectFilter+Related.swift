import Foundation

extension ObjectFilter {
    /// The object has at least one related `target` object passing `filter`: a filter across
    /// a relationship of any kind, in either direction, run as one SQL statement.
    ///
    /// ```swift
    /// // People whose card number starts with "44".
    /// let people = try store.fetch(Person.query().filter(.related(Card.self, where: .hasPrefix(\.number, "44"))))
    /// ```
    public static func related<T: Model>(_ target: T.Type, where filter: ObjectFilter<T>) -> Self {
        do {
            let source = try ModelSchema.of(M.self)
            let targetSchema = try ModelSchema.of(T.self)
            let path = try RelationPath.between(source, targetSchema)
            let unknown = filter.columns.filter { targetSchema.columnIndex[$0] == nil }.map { "\(T.self).\($0)" }
            return Self(sql: path.sourceCondition(source, targetSchema, targetWhere: filter.sql), arguments: filter.arguments, unknown: filter.unknown + unknown)
        } catch {
            return Self(sql: "0", unknown: ["\(error)"])
        }
    }
}
