import Foundation
import StashCore

/// What deleting an object does to the objects that point at it through a relationship.
///
/// ```swift
/// .belongsTo(\.ownerID, Person.self, onDelete: .cascade)
/// ```
public enum DeleteRule: String, Sendable, Codable {
    /// Deleting the target deletes the objects pointing at it.
    case cascade
    /// Deleting the target sets their reference to `nil`. The attribute must be optional:
    /// on a non-optional one the store refuses to open (``StashError/Code/invalidSchema``).
    case nullify
    /// Deleting a target that is still referenced throws ``StashError/Code/deleteDenied``
    /// and writes nothing.
    case deny

    var sql: String {
        switch self {
        case .cascade: "CASCADE"
        case .nullify: "SET NULL"
        case .deny: "RESTRICT"
        }
    }
}

/// One relationship as the schema stores it: a foreign key column of the model pointing at
/// another model's table, or a join table between two models. The target's table is read
/// lazily (models may point at each other).
struct Relationship: Sendable {
    enum Kind: Sendable, Hashable {
        /// `column` of this model holds the id of a `target` row.
        case toOne(column: String)
        /// A join table links both models.
        case manyToMany
    }
    var kind: Kind
    var targetType: ObjectIdentifier
    var targetName: String
    var target: @Sendable () throws -> ModelSchema
    /// The rule the entity declared; `nil` leaves the choice to ``resolved(columns:columnIndex:model:)``.
    var declaredDeleteRule: DeleteRule?
    /// The rule in force (after ``resolved(columns:columnIndex:model:)``).
    var deleteRule: DeleteRule { declaredDeleteRule ?? .nullify }

    /// This relationship with its delete rule settled against the model's columns: a left-out
    /// rule is `nullify` on an optional key and `deny` on a non-optional one; `nullify`
    /// declared on a non-optional key throws ``StashError/Code/invalidSchema`` (SQLite would
    /// accept the table and fail at the first delete).
    func resolved(columns: [Column], columnIndex: [String: Int], model: String) throws -> Relationship {
        guard case .toOne(let name) = kind else { return self }
        guard let index = columnIndex[name] else {
            throw StashError(.unknownAttribute, "\(model).\(name) is not stored (it is not in CodingKeys)", key: "\(model).\(name)")
        }
        let isOptional = columns[index].isOptional
        var copy = self
        switch declaredDeleteRule {
        case nil:
            copy.declaredDeleteRule = isOptional ? .nullify : .deny
        case .nullify? where !isOptional:
            throw StashError(
                .invalidSchema,
                "\(model).\(name): the delete rule nullify needs an optional attribute (declare it optional, or use cascade or deny)",
                key: "\(model).\(name)"
            )
        default:
            break
        }
        return copy
    }
}

/// The join table of a many-to-many relationship: `<source>_<target>(<source>ID, <target>ID)`,
/// both foreign keys cascading, one row per link.
struct JoinTable {
    var name: String
    var sourceColumn: String
    var targetColumn: String

    init(source: ModelSchema, target: ModelSchema) {
        name = "\(source.table)_\(target.table)"
        sourceColumn = "\(source.table)ID"
        targetColumn = "\(target.table)ID"
        if sourceColumn == targetColumn { targetColumn += "2" }
    }

    func createSQL(source: ModelSchema, target: ModelSchema) -> String {
        func type(_ schema: ModelSchema) -> String { schema.columns[schema.idColumn].type.sqlType }
        return """
            CREATE TABLE IF NOT EXISTS \(SQL.quote(name)) (
              \(SQL.quote(sourceColumn)) \(type(source)) NOT NULL REFERENCES \(SQL.quote(source.table))("id") ON DELETE CASCADE,
              \(SQL.quote(targetColumn)) \(type(target)) NOT NULL REFERENCES \(SQL.quote(target.table))("id") ON DELETE CASCADE,
              PRIMARY KEY(\(SQL.quote(sourceColumn)), \(SQL.quote(targetColumn)))
            ) WITHOUT ROWID
            """
    }
}
