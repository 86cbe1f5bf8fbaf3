import Foundation
import GRDB
import StashCore

/// Brings a database to the schema's version on open, in one transaction with foreign keys
/// off (SQLite cannot rebuild a table otherwise): explicit steps newer than the stored
/// version first (they see the old tables), then each model's ``TablePlan`` (the declaration
/// compared with the table as stored), whose data checks all run before the first write,
/// then the join tables, history and full-text indexes, a foreign-key check and the version.
/// Any failure rolls all of it back. A store already in step is only read.
struct SchemaMigrator {
    let schema: ObjectSchema
    let models: [ModelSchema]

    func migrate(_ pool: DatabasePool, path: String) throws {
        let stored = try ObjectErrors.mapping(path: path) { try pool.read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0 } }
        if stored > schema.version {
            throw StashError(.unsupportedVersion, "the store was written by schema version \(stored); this app knows up to \(schema.version); the file was left untouched", path: path)
        }
        if stored == schema.version, try ObjectErrors.mapping(path: path, { try pool.read { db in try isCurrent(db, path: path) } }) { return }
        do {
            try pool.writeWithoutTransaction { db in
                let enforced = try Bool.fetchOne(db, sql: "PRAGMA foreign_keys") ?? false
                try db.execute(sql: "PRAGMA foreign_keys = OFF")
                db.add(function: ValueConversion.function)
                defer {
                    db.remove(function: ValueConversion.function)
                    if enforced { try? db.execute(sql: "PRAGMA foreign_keys = ON") }
                }
                try db.inTransaction(.immediate) {
                    try migrate(db, path: path)
                    return .commit
                }
            }
        } catch let error as DatabaseError {
            throw StashError(.migrationFailed, "\(error.message ?? "\(error)"); the file was left as it was", path: path)
        }
    }

    private func migrate(_ db: Database, path: String) throws {
        let current = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
        if current > schema.version {
            throw StashError(.unsupportedVersion, "the store was written by schema version \(current); this app knows up to \(schema.version); the file was left untouched", path: path)
        }
        let fresh = try !db.tableExists(models.first?.table ?? "") && current == 0
        var ranSteps = false
        if !fresh {
            for step in schema.steps where step.version > current && step.version <= schema.version {
                do {
                    try step.body(MigrationContext(db: db, models: models))
                } catch {
                    throw StashError(.migrationFailed, "migration step to version \(step.version) failed: \(error); the file was left as it was", path: path)
                }
                ranSteps = true
            }
        }
        let plans = try Self.plans(models, db: db, path: path)
        try MigrationChecks.run(plans, db: db, path: path)
        for plan in plans where plan.stored == nil { try TableRebuild.apply(plan, db: db, path: path) }
        for plan in plans where plan.stored != nil { try TableRebuild.apply(plan, db: db, path: path) }
        try Self.createJoinTables(models, db: db)
        if schema.recordsHistory { try ChangeHistory.install(models, db: db) }
        try FullTextIndex.install(models, db: db)
        let rebuilt = plans.filter(\.needsRebuild).map(\.model.table)
        try MigrationChecks.foreignKeys(of: ranSteps ? nil : rebuilt, db: db, path: path)
        try db.execute(sql: "PRAGMA user_version = \(schema.version)")
    }

    /// One plan per model; a table that several models share only gets their additions.
    static func plans(_ models: [ModelSchema], db: Database, path: String) throws -> [TablePlan] {
        var unique: [ModelSchema] = []
        for model in models where !unique.contains(where: { $0 === model }) { unique.append(model) }
        let sharing = Dictionary(grouping: unique, by: \.table).mapValues(\.count)
        return try unique.map { model in
            try TablePlan.make(model, stored: StoredTable.read(model.table, db: db), additiveOnly: sharing[model.table, default: 0] > 1, path: path)
        }
    }

    /// Whether the file already matches every declaration (the usual open: nothing to write).
    private func isCurrent(_ db: Database, path: String) throws -> Bool {
        guard try Self.plans(models, db: db, path: path).allSatisfy(\.isEmpty) else { return false }
        for model in models {
            for relationship in model.relationships {
                if let join = try relationship.joinTable(from: model), try !db.tableExists(join.name) { return false }
            }
        }
        return try (!schema.recordsHistory || ChangeHistory.isInstalled(models, db: db)) && FullTextIndex.isInstalled(models, db: db)
    }

    private static func createJoinTables(_ models: [ModelSchema], db: Database) throws {
        for model in models {
            for relationship in model.relationships {
                guard let join = try relationship.joinTable(from: model) else { continue }
                let target = try relationship.target()
                try db.execute(sql: join.createSQL(source: model, target: target))
                try db.execute(sql: "CREATE INDEX IF NOT EXISTS \(SQL.quote(join.name + "_" + join.targetColumn + "_index")) ON \(SQL.quote(join.name))(\(SQL.quote(join.targetColumn)))")
            }
        }
    }

    /// Brings `models`' tables to their declarations at once (what ``MigrationContext/rewrite(_:_:)``
    /// needs before it reads objects of the new type): the same plans, checks and rebuilds
    /// as the automatic migration.
    static func apply(_ models: [ModelSchema], db: Database, path: String) throws {
        let plans = try plans(models, db: db, path: path)
        try MigrationChecks.run(plans, db: db, path: path)
        for plan in plans { try TableRebuild.apply(plan, db: db, path: path) }
        try createJoinTables(models, db: db)
    }
}
