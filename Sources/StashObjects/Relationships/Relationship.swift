import Foundation
import StashCore

/// One relationship as the schema stores it: a foreign key column of the model pointing at
/// another model's table, a join table between two models, or (named relationships only) the
/// side that reads the other side's key or join table. The target's table is read lazily
/// (models may point at each other).
struct Relationship: Sendable {
    enum Kind: Sendable, Hashable {
        /// `column` of this model holds the id of a `target` row.
        case toOne(column: String)
        /// A join table links both models; this side creates it.
        case manyToMany
        /// The other side stores it: the target's key column, or its join table.
        case inverse
    }
    var kind: Kind
    var targetType: ObjectIdentifier
    var targetName: String
    var target: @Sendable () throws -> ModelSchema
    /// The rule the entity declared; `nil` leaves the choice to ``resolved(columns:columnIndex:model:)``.
    var declaredDeleteRule: ObjectSchema.DeleteRule?
    /// The rule in force (after ``resolved(columns:columnIndex:model:)``).
    var deleteRule: ObjectSchema.DeleteRule { declaredDeleteRule ?? .nullify }
    /// The name a named relationship (``ToOne``, ``ToMany``) was declared with; `nil` for
    /// `belongsTo` and `manyToMany(_:)`.
    var name: String?
    /// The name of the target's relationship that is this one seen from the other side.
    var inverse: String?
    /// Whether reading it gives many objects.
    var toMany = false
    /// The target's declared relationships and table, read without resolving its schema
    /// (which may be resolving this one).
    var targetDeclarations: @Sendable () -> (table: String, relationships: [Relationship]) = { ("", []) }
    /// A named many-to-many's own join table (`<table>_<name>`), on the side that creates it.
    var join: JoinTable?
    /// A key column that holds distinct values: the key of a one-to-one.
    var isUniqueKey = false
    /// A key path that names no stored property, reported when the store opens.
    var unknownKey: String?
    /// For a to-one holding a key: the object with its key set to a value (an id of the
    /// target, or null), or `nil` when the key cannot hold it (null in a non-optional key)
    /// or is not writable (a `let`).
    var setKey: (@Sendable (any Model, ObjectStore.StoredValue) -> (any Model)?)?
    /// For a to-one holding a key: the key's value in an object of the source model.
    var getKey: (@Sendable (any Model) -> ObjectStore.StoredValue?)?

    /// This relationship with its delete rule settled against the model's columns: a left-out
    /// rule is `nullify` on an optional key and `deny` on a non-optional one; `nullify`
    /// declared on a non-optional key throws ``StashCore/StashError/Code/invalidSchema`` (SQLite would
    /// accept the table and fail at the first delete). A named one is also matched with its
    /// inverse (``NamedRelationships/settle(_:table:model:)``).
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

    /// The join table of this many-to-many, on the side that creates it (`nil` on the other).
    func joinTable(from source: ModelSchema) throws -> JoinTable? {
        guard kind == .manyToMany else { return nil }
        return try join ?? JoinTable(source: source, target: target())
    }
}

/// The join table of a many-to-many relationship: `<source>_<target>(<source>ID, <target>ID)`,
/// both foreign keys cascading, one row per link.
struct JoinTable: Sendable, Hashable {
    var name: String
    var sourceColumn: String
    var targetColumn: String

    /// The join table of named many-to-many `name` declared on `sourceTable`.
    init(sourceTable: String, name relationship: String, targetTable: String) {
        name = "\(sourceTable)_\(relationship)"
        sourceColumn = "\(sourceTable)ID"
        targetColumn = "\(targetTable)ID"
        if sourceColumn == targetColumn { targetColumn += "2" }
    }

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
