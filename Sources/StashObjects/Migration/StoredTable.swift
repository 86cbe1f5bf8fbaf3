import Foundation
import GRDB

/// A model's table as the file holds it, read from SQLite's own schema (`pragma_table_info`,
/// `pragma_index_list`, `pragma_foreign_key_list`): the store keeps no other record of its
/// schema, so this is what the migrator compares with the declaration. Everything here came
/// from a file and is treated as hostile input: names are only ever quoted, types only
/// compared.
struct StoredTable {
    struct Column {
        var name: String
        /// The declared type, uppercased (`INTEGER`, `TEXT`…; anything for a foreign table).
        var type: String
        var isNotNull: Bool
        /// The `DEFAULT` clause's SQL text, as written.
        var defaultSQL: String?
        var isPrimaryKey: Bool
    }

    struct Index: Equatable {
        var name: String
        var isUnique: Bool
        /// The indexed columns in order; `nil` for an expression.
        var columns: [String?]
        /// `c` for `CREATE INDEX`, `u` / `pk` for a constraint of the table.
        var origin: String
        /// The `CREATE INDEX` statement (`nil` for a constraint's automatic index).
        var sql: String?
    }

    struct ForeignKey: Hashable {
        var column: String
        var table: String
        var onDelete: String
    }

    var name: String
    var columns: [Column]
    var indexes: [Index]
    var foreignKeys: Set<ForeignKey>
    /// `CREATE TRIGGER` statements on the table that Stash did not write (the migrator
    /// re-runs them after a rebuild).
    var triggerSQL: [(name: String, sql: String)]

    func column(_ name: String) -> Column? { columns.first { $0.name == name } }

    /// The table `name`, or `nil` when the file has no such table.
    static func read(_ name: String, db: Database) throws -> StoredTable? {
        guard try db.tableExists(name) else { return nil }
        let columns = try Row.fetchAll(db, sql: "SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?)", arguments: [name]).map { row in
            Column(
                name: row[0] ?? "", type: (row[1] as String? ?? "").uppercased(), isNotNull: (row[2] as Int64? ?? 0) != 0,
                defaultSQL: row[3], isPrimaryKey: (row[4] as Int64? ?? 0) != 0
            )
        }
        var indexes: [Index] = []
        for row in try Row.fetchAll(db, sql: "SELECT name, \"unique\", origin FROM pragma_index_list(?)", arguments: [name]) {
            let indexName: String = row[0] ?? ""
            let indexed = try Row.fetchAll(db, sql: "SELECT name FROM pragma_index_info(?) ORDER BY seqno", arguments: [indexName]).map { $0[0] as String? }
            let sql = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?", arguments: [indexName])
            indexes.append(Index(name: indexName, isUnique: (row[1] as Int64? ?? 0) != 0, columns: indexed, origin: row[2] ?? "", sql: sql))
        }
        let keys = try Row.fetchAll(db, sql: "SELECT \"from\", \"table\", on_delete FROM pragma_foreign_key_list(?)", arguments: [name]).map { row in
            ForeignKey(column: row[0] ?? "", table: row[1] ?? "", onDelete: (row[2] as String? ?? "").uppercased())
        }
        let triggers = try Row.fetchAll(
            db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ? AND sql IS NOT NULL ORDER BY rowid", arguments: [name]
        ).map { (name: $0[0] as String, sql: $0[1] as String) }
        return StoredTable(name: name, columns: columns, indexes: indexes, foreignKeys: Set(keys), triggerSQL: triggers)
    }
}
