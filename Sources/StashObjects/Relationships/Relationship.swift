import Foundation

/// What deleting an object does to the objects that point at it through a relationship.
///
/// ```swift
/// .belongsTo(\.ownerID, Person.self, onDelete: .cascade)
/// ```
public enum DeleteRule: String, Sendable, Codable {
    /// Deleting the target deletes the objects pointing at it.
    case cascade
    /// Deleting the target sets their reference to `nil` (the attribute must be optional).
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
/// another model's table, or a join table between two models.
struct Relationship: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        /// `column` of this model holds the id of a `target` row.
        case toOne(column: String)
        /// A join table `joinTable(sourceColumn, targetColumn)` links both models.
        case manyToMany(joinTable: String)
    }
    var name: String
    var kind: Kind
    var targetTable: String
    var targetType: ObjectIdentifier
    var deleteRule: DeleteRule
}
