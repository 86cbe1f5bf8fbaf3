import StashCore

extension ObjectSchema {
    /// What deleting an object does to the objects that point at it through a relationship.
    ///
    /// ```swift
    /// .belongsTo(\.ownerID, Person.self, onDelete: .cascade)
    /// ```
    public enum DeleteRule: String, Sendable, Codable {
        /// Deleting the target deletes the objects pointing at it.
        case cascade
        /// Deleting the target sets their reference to `nil`. The attribute must be optional:
        /// on a non-optional one the store refuses to open (``StashCore/StashError/Code/invalidSchema``).
        case nullify
        /// Deleting a target that is still referenced throws ``StashCore/StashError/Code/deleteDenied``
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
}
