import Foundation

/// The models a store holds, the schema's version, and the explicit migration steps that
/// lead to it.
///
/// Changes the store can infer need no step: on open every model is compared with its table
/// and new models and attributes, dropped attributes, type changes, optional ↔ required,
/// unique constraints, indexes, relationships and delete rules are migrated where the data
/// allows, and refused (``StashCore/StashError/Code/migrationFailed`` naming `Model.attribute`, the
/// file untouched) where it does not. Renames and rewrites are explicit steps.
///
/// ```swift
/// let schema = ObjectSchema(version: 3, Person.self, Card.self, migrations: [
///     MigrationStep(to: 3) { migration in
///         try migration.renameAttribute("name", to: "fullName", in: Person.self)
///     },
/// ])
/// ```
public struct ObjectSchema: Sendable {
    /// The version written into the database (`PRAGMA user_version`).
    public let version: Int
    let models: [any Model.Type]
    let steps: [MigrationStep]
    /// Whether every committed change is recorded for ``ObjectStore/changes(since:)``.
    public let recordsHistory: Bool

    /// A schema of `models` at `version` (1 and up), with the explicit `migrations` that
    /// lead to it from older versions.
    public init(version: Int = 1, _ models: any Model.Type..., migrations: [MigrationStep] = [], history: Bool = false) {
        self.init(version: version, models: models, migrations: migrations, history: history)
    }

    /// A schema of `models` at `version`, with the explicit `migrations` that lead to it.
    ///
    /// ```swift
    /// let schema = ObjectSchema(version: 2, models: [Person.self, Card.self])
    /// ```
    ///
    /// With `history`, every insert, update and delete (cascades and other programs' writes
    /// included) is recorded by SQLite triggers for ``ObjectStore/changes(since:)``; each
    /// recorded write costs one more row.
    public init(version: Int = 1, models: [any Model.Type], migrations: [MigrationStep] = [], history: Bool = false) {
        self.recordsHistory = history
        self.version = version
        self.models = models
        self.steps = migrations.sorted { $0.version < $1.version }
    }

    func resolve() throws -> [ModelSchema] {
        try models.map { try ModelSchema.of($0) }
    }
}
