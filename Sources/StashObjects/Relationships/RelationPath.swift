import Foundation
import StashCore

/// How the objects of one model reach those of another: which foreign key or join table,
/// in which direction. Found from either side's entity.
enum RelationPath: Sendable, Hashable {
    /// The target model's `column` holds the source's id (the to-many side of `belongsTo`).
    case targetColumn(String)
    /// The source model's `column` holds the target's id (`belongsTo` itself).
    case sourceColumn(String)
    /// A join table; `source` and `target` name its columns for this direction.
    case join(table: String, source: String, target: String)

    /// The one link between two models, from either side's declarations; more than one
    /// (sender and recipient, a named relationship and its inverse's key) is ambiguous and
    /// must be read by name.
    static func between(_ source: ModelSchema, _ target: ModelSchema) throws -> RelationPath {
        let found = try links(declaredBy: target, to: source, reversed: true) + links(declaredBy: source, to: target, reversed: false)
        // A self-reference is seen from both sides: keep each link once.
        var unique: [RelationPath] = []
        for path in found where !unique.contains(path) { unique.append(path) }
        guard let path = unique.first else {
            throw StashError(.unknownAttribute, "\(source.modelName) has no relationship with \(target.modelName)", key: "\(source.modelName).\(target.modelName)")
        }
        guard unique.count == 1 || source.type == target.type && unique.count == 2 && !unique.contains(where: \.isJoin) else {
            throw StashError(
                .unknownAttribute,
                "\(source.modelName) and \(target.modelName) are linked in \(unique.count) ways: read the relationship by its name",
                key: "\(source.modelName).\(target.modelName)"
            )
        }
        return path
    }

    /// The links `owner`'s declarations make to `other`, seen from `owner`, or with
    /// `reversed` from `other`.
    private static func links(declaredBy owner: ModelSchema, to other: ModelSchema, reversed: Bool) throws -> [RelationPath] {
        try owner.relationships.filter { $0.targetType == other.type }.compactMap { relationship in
            switch relationship.kind {
            case .toOne(let column):
                return reversed ? .targetColumn(column) : .sourceColumn(column)
            case .manyToMany:
                guard let join = try relationship.joinTable(from: owner) else { return nil }
                return .join(table: join.name, source: reversed ? join.targetColumn : join.sourceColumn, target: reversed ? join.sourceColumn : join.targetColumn)
            case .inverse:
                return nil
            }
        }
    }

    var isJoin: Bool {
        if case .join = self { return true }
        return false
    }

    /// `SELECT <target columns>, <source id> FROM target … WHERE <source id> IN (sourceIDs)`:
    /// the related objects of a set of source objects, each with the source id it belongs to
    /// as its last column.
    func selectRelated(_ source: ModelSchema, _ target: ModelSchema, sourceIDs: String) -> String {
        let columns = target.columns.map { "t." + SQL.quote($0.name) }.joined(separator: ", ")
        let table = SQL.quote(target.table)
        let targetID = "t." + SQL.quote(target.columns[target.idColumn].name)
        switch self {
        case .targetColumn(let column):
            return "SELECT \(columns), t.\(SQL.quote(column)) FROM \(table) t WHERE t.\(SQL.quote(column)) IN (\(sourceIDs))"
        case .sourceColumn(let column):
            let sourceID = "s." + SQL.quote(source.columns[source.idColumn].name)
            return "SELECT \(columns), \(sourceID) FROM \(table) t JOIN \(SQL.quote(source.table)) s ON s.\(SQL.quote(column)) = \(targetID) WHERE \(sourceID) IN (\(sourceIDs))"
        case .join(let join, let sourceColumn, let targetColumn):
            return "SELECT \(columns), j.\(SQL.quote(sourceColumn)) FROM \(table) t JOIN \(SQL.quote(join)) j ON j.\(SQL.quote(targetColumn)) = \(targetID) WHERE j.\(SQL.quote(sourceColumn)) IN (\(sourceIDs))"
        }
    }

    /// A condition on the source table: its objects related to a target object that
    /// `targetWhere` selects (unqualified target columns).
    func sourceCondition(_ source: ModelSchema, _ target: ModelSchema, targetWhere: String) -> String {
        let sourceID = SQL.quote(source.columns[source.idColumn].name)
        let targetTable = SQL.quote(target.table)
        let targetID = SQL.quote(target.columns[target.idColumn].name)
        switch self {
        case .targetColumn(let column):
            return "\(sourceID) IN (SELECT \(SQL.quote(column)) FROM \(targetTable) WHERE \(targetWhere))"
        case .sourceColumn(let column):
            return "\(SQL.quote(column)) IN (SELECT \(targetID) FROM \(targetTable) WHERE \(targetWhere))"
        case .join(let join, let sourceColumn, let targetColumn):
            return "\(sourceID) IN (SELECT \(SQL.quote(sourceColumn)) FROM \(SQL.quote(join)) WHERE \(SQL.quote(targetColumn)) IN (SELECT \(targetID) FROM \(targetTable) WHERE \(targetWhere)))"
        }
    }

    /// The source column a relationship condition tests (`IN`), and the `SELECT` of its
    /// values among the related objects passing `targetWhere`: the key the target holds,
    /// the join table's source column, or the target's id (compared with the source's key).
    /// `grouped` adds `GROUP BY … HAVING <grouped>` (the count forms).
    func sourceKeys(_ source: ModelSchema, _ target: ModelSchema, targetWhere: String, having: String? = nil) -> (column: String, select: String) {
        let sourceID = SQL.quote(source.columns[source.idColumn].name)
        let targetTable = SQL.quote(target.table)
        let targetID = SQL.quote(target.columns[target.idColumn].name)
        let grouping: (String) -> String = { column in having.map { " GROUP BY \(column) HAVING \($0)" } ?? "" }
        switch self {
        case .targetColumn(let column):
            let key = SQL.quote(column)
            return (sourceID, "SELECT \(key) FROM \(targetTable) WHERE (\(targetWhere)) AND \(key) IS NOT NULL\(grouping(key))")
        case .sourceColumn(let column):
            return (SQL.quote(column), "SELECT \(targetID) FROM \(targetTable) WHERE \(targetWhere)\(grouping(targetID))")
        case .join(let join, let sourceColumn, let targetColumn):
            let key = SQL.quote(sourceColumn)
            return (sourceID, "SELECT \(key) FROM \(SQL.quote(join)) WHERE \(SQL.quote(targetColumn)) IN (SELECT \(targetID) FROM \(targetTable) WHERE \(targetWhere))\(grouping(key))")
        }
    }

    /// `FROM`/`JOIN` text and the condition that reach the target (as `alias`) from the
    /// source (as `from`, a table name or an alias): one step of a correlated path.
    func step(_ source: ModelSchema, _ target: ModelSchema, from: String, alias: String) -> (table: String, condition: String) {
        let table = "\(SQL.quote(target.table)) AS \(alias)"
        let sourceID = SQL.quote(source.columns[source.idColumn].name)
        let targetID = SQL.quote(target.columns[target.idColumn].name)
        switch self {
        case .sourceColumn(let column):
            return (table, "\(alias).\(targetID) = \(from).\(SQL.quote(column))")
        case .targetColumn(let column):
            return (table, "\(alias).\(SQL.quote(column)) = \(from).\(sourceID)")
        case .join(let join, let sourceColumn, let targetColumn):
            // Never a to-one path; kept total for completeness.
            return (table, "\(alias).\(targetID) IN (SELECT \(SQL.quote(targetColumn)) FROM \(SQL.quote(join)) WHERE \(SQL.quote(sourceColumn)) = \(from).\(sourceID))")
        }
    }
}
