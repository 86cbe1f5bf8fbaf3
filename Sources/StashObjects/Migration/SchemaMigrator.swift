import Foundation
import GRDB
import StashCore

/// Brings a database to the schema's version on open, in one transaction: explicit steps
/// newer than the stored version first (they see the old tables), then the additive changes
/// (new tables, columns, indexes), then the version. Any failure rolls all of it back.
struct SchemaMigrator {
    let schema: ObjectSchema
    let models: [ModelSchema]

    func migrate(_ pool: DatabasePool, path: String) throws {
        let stored = try ObjectErrors.mapping(path: path) { try pool.read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0 } }
        if stored > schema.version {
            throw StashError(.unsupportedVersion, "the store was written by schema version \(stored); this app knows up to \(schema.version); the file was left untouched", path: path)
        }
        if stored == schema.version, try isCurrent(pool), try pool.read({ db in
            try (!schema.recordsHistory || ChangeHistory.isInstalled(models, db: db)) && FullTextIndex.isInstalled(models, db: db)
        }) { return }
        do {
            try pool.write { db in
                let current = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
                if current > schema.version {
                    throw StashError(.unsupportedVersion, "the store was written by schema version \(current); this app knows up to \(schema.version); the file was left untouched", path: path)
                }
                let fresh = try !db.tableExists(models.first?.table ?? "") && current == 0
                if !fresh {
                    for step in schema.steps where step.version > current && step.version <= schema.version {
                        do {
                            try step.body(MigrationContext(db: db, models: models))
                        } catch {
                            throw StashError(.migrationFailed, "migration step to version \(step.version) failed: \(error); the file was left as it was", path: path)
                        }
                    }
                }
                try Self.applyAdditive(models, db: db, path: path)
                if schema.recordsHistory { try ChangeHistory.install(models, db: db) }
                try FullTextIndex.install(models, db: db)
                try db.execute(sql: "PRAGMA user_version = \(schema.version)")
            }
        } catch let error as DatabaseError {
            throw StashError(.migrationFailed, "\(error.message ?? "\(error)"); the file was left as it was", path: path)
        }
    }

    /// Whether every table, column and index already exists (the usual open: nothing to write).
    private func isCurrent(_ pool: DatabasePool) throws -> Bool {
        try pool.read { db in
            for model in models {
                guard try db.tableExists(model.table) else { return false }
                let existing = Set(try db.columns(in: model.table).map(\.name))
                if model.columns.contains(where: { !existing.contains($0.name) }) { return false }
                for relationship in model.relationships {
                    if let join = try relationship.joinTable(from: model), try !db.tableExists(join.name) { return false }
                }
            }
            return true
        }
    }

    /// New tables, new columns (optional or with a default), indexes.
    static func applyAdditive(_ models: [ModelSchema], db: Database, path: String) throws {
        for model in models {
            if try !db.tableExists(model.table) {
                try db.execute(sql: model.createTableSQL())
            } else {
                let existing = Set(try db.columns(in: model.table).map(\.name))
                for (index, column) in model.columns.enumerated() where !existing.contains(column.name) {
                    guard column.isOptional || model.defaults[column.name] != nil else {
                        throw StashError(
                            .migrationFailed,
                            "\(model.modelName).\(column.name) is new and neither optional nor given a default value: add .defaultValue(\\.\(column.name), …) or an explicit migration step; the file was left as it was",
                            path: path,
                            key: "\(model.modelName).\(column.name)"
                        )
                    }
                    var definition = model.columnDefinition(column, isKey: index == model.idColumn)
                    for relationship in model.relationships {
                        if case .toOne(let foreign) = relationship.kind, foreign == column.name {
                            definition += " REFERENCES \(SQL.quote(try relationship.target().table))(\"id\") ON DELETE \(relationship.deleteRule.sql)"
                        }
                    }
                    try db.execute(sql: "ALTER TABLE \(SQL.quote(model.table)) ADD COLUMN \(definition)")
                }
            }
            for statement in model.indexSQL() { try db.execute(sql: statement) }
        }
        for model in models {
            for relationship in model.relationships {
                guard let join = try relationship.joinTable(from: model) else { continue }
                let target = try relationship.target()
                try db.execute(sql: join.createSQL(source: model, target: target))
                try db.execute(sql: "CREATE INDEX IF NOT EXISTS \(SQL.quote(join.name + "_" + join.targetColumn + "_index")) ON \(SQL.quote(join.name))(\(SQL.quote(join.targetColumn)))")
            }
        }
    }
}
