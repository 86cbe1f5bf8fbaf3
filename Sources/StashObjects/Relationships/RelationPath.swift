import Foundation
import StashCore

/// How the objects of one model reach those of another: which foreign key or join table,
/// in which direction. Found from either side's entity.
enum RelationPath {
    /// The target model's `column` holds the source's id (the to-many side of `belongsTo`).
    case targetColumn(String)
    /// The source model's `column` holds the target's id (`belongsTo` itself).
    case sourceColumn(String)
    /// A join table; `source` and `target` name its columns for this direction.
    case join(table: String, source: String, target: String)

    static func between(_ source: ModelSchema, _ target: ModelSchema) throws -> RelationPath {
        for relationship in target.relationships where relationship.targetType == source.type {
            if case .toOne(let column) = relationship.kind { return .targetColumn(column) }
        }
        for relationship in source.relationships where relationship.targetType == target.type {
            switch relationship.kind {
            case .toOne(let column): return .sourceColumn(column)
            case .manyToMany:
                let join = JoinTable(source: source, target: target)
                return .join(table: join.name, source: join.sourceColumn, target: join.targetColumn)
            }
        }
        for relationship in target.relationships where relationship.targetType == source.type && relationship.kind == .manyToMany {
            let join = JoinTable(source: target, target: source)
            return .join(table: join.name, source: join.targetColumn, target: join.sourceColumn)
        }
        throw StashError(.unknownAttribute, "\(source.modelName) has no relationship with \(target.modelName)", key: "\(source.modelName).\(target.modelName)")
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
}
