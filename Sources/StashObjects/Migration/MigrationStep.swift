import Foundation
import GRDB
import StashCore

/// An explicit, numbered migration: what the automatic migration cannot do (a rename, a
/// split, a data rewrite, a conversion that loses information). It runs when the store's
/// version is below `version`, inside the migration's one transaction, before the automatic
/// changes of the new schema: it sees the old tables. Foreign keys are not enforced while
/// it runs (SQLite cannot rebuild a table otherwise), so a delete does not cascade; every
/// foreign key is checked before the migration commits, and one left pointing nowhere
/// fails it (``StashCore/StashError/Code/migrationFailed``, nothing written).
///
/// ```swift
/// MigrationStep(to: 3) { migration in
///     try migration.renameAttribute("name", to: "fullName", in: Person.self)
///     try migration.rewrite(Person.self) { $0.fullName = $0.fullName.capitalized }
/// }
/// ```
public struct MigrationStep: Sendable {
    /// The schema version this step leads to.
    public let version: Int
    let body: @Sendable (MigrationContext) throws -> Void

    /// A step to `version`.
    public init(to version: Int, _ body: @escaping @Sendable (MigrationContext) throws -> Void) {
        self.version = version
        self.body = body
    }
}

/// What a migration step can do: SQL on the old tables, renames, and rewriting every object
/// of a model with the new schema's type.
public final class MigrationContext {
    let db: Database
    let models: [ModelSchema]

    init(db: Database, models: [ModelSchema]) {
        self.db = db
        self.models = models
    }

    private func schema<M: Model>(_ type: M.Type) throws -> ModelSchema {
        guard let schema = models.first(where: { $0.type == ObjectIdentifier(type) }) else {
            throw StashError(.unknownModel, "\(M.self) is not in the schema", key: "\(M.self)")
        }
        return schema
    }

    /// Runs SQL on the database as it is (arguments bound, never spliced).
    ///
    /// ```swift
    /// try migration.execute("UPDATE person SET age = age + ?", 1)
    /// ```
    public func execute(_ sql: String, _ arguments: any Storable...) throws {
        try db.execute(sql: sql, arguments: StatementArguments(arguments.map(\.storedValue.databaseValue)))
    }

    /// Renames a column of the model's table, keeping its values.
    ///
    /// ```swift
    /// try migration.renameAttribute("name", to: "fullName", in: Person.self)
    /// ```
    public func renameAttribute<M: Model>(_ old: String, to new: String, in type: M.Type) throws {
        let table = try schema(type).table
        try db.execute(sql: "ALTER TABLE \(SQL.quote(table)) RENAME COLUMN \(SQL.quote(old)) TO \(SQL.quote(new))")
    }

    /// Renames a table to the model's table name, keeping its rows.
    ///
    /// ```swift
    /// try migration.renameTable("people", to: Person.self)
    /// ```
    public func renameTable<M: Model>(_ old: String, to type: M.Type) throws {
        let table = try schema(type).table
        try db.execute(sql: "ALTER TABLE \(SQL.quote(old)) RENAME TO \(SQL.quote(table))")
    }

    /// Brings the model's table to the new schema (the automatic migration's changes, see
    /// ``ObjectSchema``), then passes every object through `change` and writes it back.
    ///
    /// ```swift
    /// try migration.rewrite(Person.self) { $0.name = $0.name.uppercased() }
    /// ```
    public func rewrite<M: Model>(_ type: M.Type, _ change: (inout M) throws -> Void) throws {
        let schema = try schema(type)
        try SchemaMigrator.apply([schema], db: db, path: db.description)
        let statement = try db.makeStatement(sql: "SELECT \(schema.selectList) FROM \(SQL.quote(schema.table))")
        let cursor = try ModelCursor<M>(statement: statement, arguments: [], schema: schema)
        var objects: [M] = []
        try cursor.forEach { objects.append($0) }
        let update = try db.makeStatement(sql: schema.updateSQL)
        let encoder = RowEncoder(schema: schema)
        for var object in objects {
            try change(&object)
            update.setUncheckedArguments(StatementArguments())
            try encoder.bind(object, to: update.sqliteStatement)
            try update.execute()
        }
    }
}
