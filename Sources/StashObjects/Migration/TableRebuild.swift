import Foundation
import GRDB
import StashCore

/// Carries out one ``TablePlan`` inside the migration's transaction (foreign keys off, data
/// checked): creates a new table, or changes an existing one in place, or rebuilds it the
/// way SQLite documents for the changes `ALTER TABLE` cannot make ("Making Other Kinds Of
/// Table Schema Changes"): create the new table under another name, copy the rows with
/// their conversions, drop the old table, rename the new one, recreate the indexes and the
/// triggers that are not Stash's. The full-text index and the history triggers are
/// reinstalled afterwards by their own installers, which see their triggers gone.
enum TableRebuild {
    static func apply(_ plan: TablePlan, db: Database, path: String) throws {
        let model = plan.model
        let table = SQL.quote(model.table)
        if plan.stored == nil, try !db.tableExists(model.table) {
            try db.execute(sql: model.createTableSQL())
            try createIndexes(plan, db: db)
            return
        }
        guard let stored = plan.stored, plan.needsRebuild else {
            for name in plan.droppedIndexes { try db.execute(sql: "DROP INDEX IF EXISTS \(SQL.quote(name))") }
            // Another model sharing the table may have created it or added a column already.
            let existing = Set(try db.columns(in: model.table).map(\.name))
            for column in plan.stored == nil ? model.columns : plan.addedColumns where !existing.contains(column.name) {
                try db.execute(sql: "ALTER TABLE \(table) ADD COLUMN \(model.columnDefinition(column, isKey: false))")
            }
            try createIndexes(plan, db: db)
            return
        }
        var temporary = "stash_migrating_" + model.table
        while try db.tableExists(temporary) { temporary += "_" }
        let sequence = try db.tableExists("sqlite_sequence")
            ? try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = ?", arguments: [model.table]) : nil
        try db.execute(sql: model.createTableSQL(named: temporary))
        let columns = plan.copied.map { SQL.quote($0.column) }.joined(separator: ", ")
        let expressions = plan.copied.map(\.expression).joined(separator: ", ")
        try db.execute(sql: "INSERT INTO \(SQL.quote(temporary))(\(columns)) SELECT \(expressions) FROM \(table)")
        try db.execute(sql: "DROP TABLE \(table)")
        try db.execute(sql: "ALTER TABLE \(SQL.quote(temporary)) RENAME TO \(table)")
        if let sequence {
            // AUTOINCREMENT never reuses an id: keep the old table's high-water mark.
            try db.execute(sql: "UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?", arguments: [sequence, model.table])
            if db.changesCount == 0 { try db.execute(sql: "INSERT INTO sqlite_sequence(name, seq) VALUES (?, ?)", arguments: [model.table, sequence]) }
        }
        try createIndexes(plan, db: db)
        try restoreOthers(stored, model: model, db: db, path: path)
    }

    private static func createIndexes(_ plan: TablePlan, db: Database) throws {
        let wanted = Set(plan.createdIndexes)
        for (index, sql) in zip(plan.model.declaredIndexes(), plan.model.indexSQL()) where wanted.contains(index.name) {
            try db.execute(sql: sql)
        }
    }

    /// The indexes and triggers someone else put on the table, as they were written; an index
    /// over a dropped column goes with it (as SQLite's `DROP COLUMN` would refuse it), a
    /// trigger that no longer compiles fails the migration naming it.
    private static func restoreOthers(_ stored: StoredTable, model: ModelSchema, db: Database, path: String) throws {
        for index in stored.indexes where index.origin == "c" && !TablePlan.isManagedIndex(index.name, table: model.table) {
            guard let sql = index.sql, index.columns.allSatisfy({ $0.map { model.columnIndex[$0] != nil } ?? true }) else { continue }
            try db.execute(sql: sql)
        }
        let ours = Set(FullTextIndex.triggerSuffixes.map { FullTextIndex.name(model) + $0 } + ["insert", "update", "delete"].map { ChangeHistory.triggerName(model.table, $0) })
        for trigger in stored.triggerSQL where !ours.contains(trigger.name) {
            do {
                try db.execute(sql: trigger.sql)
            } catch let error as DatabaseError {
                throw StashError(
                    .migrationFailed,
                    "\(model.modelName): the trigger \(trigger.name) does not fit the new table (\(error.message ?? "\(error)")); drop or rewrite it in an explicit migration step; the file was left as it was",
                    path: path, key: model.modelName
                )
            }
        }
    }
}
