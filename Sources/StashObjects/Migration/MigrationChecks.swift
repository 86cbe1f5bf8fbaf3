import Foundation
import GRDB
import StashCore

/// The data checks of a migration's plans, run with reads only before the migration writes
/// anything: a refused migration leaves the file (and its WAL) byte-identical, however large
/// the rebuild would have been. Each failure is ``StashCore/StashError/Code/migrationFailed`` with key
/// `Model.attribute` and the first offending object's id.
enum MigrationChecks {
    static func run(_ plans: [TablePlan], db: Database, path: String) throws {
        for plan in plans {
            for check in plan.checks { try run(check, of: plan, db: db, path: path) }
        }
    }

    private static func run(_ check: TablePlan.Check, of plan: TablePlan, db: Database, path: String) throws {
        let table = SQL.quote(plan.model.table)
        let id = SQL.quote(plan.model.columns[plan.model.idColumn].name)
        func refuse(_ column: String, _ reason: String) -> StashError {
            StashError(.migrationFailed, "\(plan.key(column)): \(reason); the file was left as it was", path: path, key: plan.key(column))
        }
        switch check {
        case .noNulls(let column):
            let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table) WHERE \(SQL.quote(column)) IS NULL") ?? 0
            if count > 0 {
                let first = try DatabaseValue.fetchOne(db, sql: "SELECT \(id) FROM \(table) WHERE \(SQL.quote(column)) IS NULL LIMIT 1") ?? .null
                throw refuse(column, "is now required but \(count) object(s) hold nil (the first: id \(first)); declare .defaultValue(\\.\(column), …) to fill them, or set them in an explicit migration step")
            }
        case .converts(let column, let type):
            let sql = "SELECT \(id), \(SQL.quote(column)) FROM \(table) WHERE \(SQL.quote(column)) IS NOT NULL AND \(ValueConversion.expression(column, to: type)) IS NULL LIMIT 1"
            if let row = try Row.fetchOne(db, sql: sql) {
                throw refuse(column, "\(ValueConversion.describe(row[1])) (id \(row[0] as DatabaseValue)) does not convert to \(type) without loss; convert it in an explicit migration step")
            }
        case .distinct(let columns):
            let list = columns.map(SQL.quote).joined(separator: ", ")
            let present = columns.map { "\(SQL.quote($0)) IS NOT NULL" }.joined(separator: " AND ")
            let sql = "SELECT \(list) FROM \(table) WHERE \(present) GROUP BY \(list) HAVING count(*) > 1 LIMIT 1"
            if let row = try Row.fetchOne(db, sql: sql) {
                let values = columns.indices.map { ValueConversion.describe(row[$0]) }.joined(separator: ", ")
                throw refuse(columns.joined(separator: "+"), "is now unique but several objects hold \(values); make them distinct in an explicit migration step")
            }
        case .references(let column, let target):
            let missing: DatabaseValue?
            if try db.tableExists(target) {
                missing = try DatabaseValue.fetchOne(db, sql: """
                    SELECT \(SQL.quote(column)) FROM \(table) WHERE \(SQL.quote(column)) IS NOT NULL
                    AND \(SQL.quote(column)) NOT IN (SELECT "id" FROM \(SQL.quote(target))) LIMIT 1
                    """)
            } else {
                missing = try DatabaseValue.fetchOne(db, sql: "SELECT \(SQL.quote(column)) FROM \(table) WHERE \(SQL.quote(column)) IS NOT NULL LIMIT 1")
            }
            if let missing {
                throw refuse(column, "becomes a foreign key to \(target) but holds \(ValueConversion.describe(missing)), which is no id of \(target); fix or clear it in an explicit migration step")
            }
        }
    }

    /// SQLite's own check of the foreign keys of `tables` (every table when `nil`), run
    /// after the rebuilds and before the commit: the last guard, which the checks above make
    /// unreachable for the changes they know.
    static func foreignKeys(of tables: [String]?, db: Database, path: String) throws {
        let targets: [String?] = tables ?? [nil]
        for table in targets {
            let sql = table.map { "PRAGMA foreign_key_check(\(SQL.quote($0)))" } ?? "PRAGMA foreign_key_check"
            if let row = try Row.fetchOne(db, sql: sql) {
                let child: String = row[0] ?? "?"
                let parent: String = row[2] ?? "?"
                throw StashError(
                    .migrationFailed,
                    "a row of \(child) (rowid \(row[1] as DatabaseValue)) points at no row of \(parent) after the migration; the file was left as it was",
                    path: path, key: child
                )
            }
        }
    }
}
