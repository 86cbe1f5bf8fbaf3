import Foundation
import StashCore

/// What one model's table needs to match its declaration, found by comparing the table as
/// stored (``StoredTable``) with the model: nothing, a new table, columns to add and indexes
/// to create or drop (done in place), or a rebuild (``TableRebuild``) for everything SQLite's
/// `ALTER TABLE` cannot change: a dropped attribute, a new type, optional ↔ required, a new
/// default value, a foreign key added, removed or given another delete rule. Building a plan
/// reads nothing but the schema; the data it depends on is listed in `checks`, which
/// ``MigrationChecks`` runs before anything is written.
struct TablePlan {
    /// A condition on the stored rows without which the plan cannot run.
    enum Check {
        /// No `NULL` in the column (it becomes required and has no default value).
        case noNulls(column: String)
        /// Every value converts to the new SQL type (``ValueConversion``).
        case converts(column: String, type: String)
        /// No two rows share values of these columns (a new unique constraint).
        case distinct(columns: [String])
        /// Every non-`NULL` value is an id of `table` (a new foreign key).
        case references(column: String, table: String)
    }

    let model: ModelSchema
    /// `nil` when the table does not exist yet.
    let stored: StoredTable?
    /// Why the table is rebuilt, one phrase per change (`Person.age: INTEGER → TEXT`); empty
    /// when it is not.
    var rebuildReasons: [String] = []
    /// Columns `ALTER TABLE … ADD COLUMN` adds (when the table is not rebuilt).
    var addedColumns: [Column] = []
    /// For a rebuild: each column kept from the old table and the expression that reads it.
    var copied: [(column: String, expression: String)] = []
    /// Indexes of ours to drop (when the table is not rebuilt).
    var droppedIndexes: [String] = []
    /// Declared indexes that do not exist yet (all of them after a rebuild).
    var createdIndexes: [String] = []
    var checks: [Check] = []

    var needsRebuild: Bool { !rebuildReasons.isEmpty }
    var isEmpty: Bool { stored != nil && !needsRebuild && addedColumns.isEmpty && droppedIndexes.isEmpty && createdIndexes.isEmpty }

    /// `Model.attribute`, the key of every error about one attribute.
    func key(_ column: String) -> String { "\(model.modelName).\(column)" }

    /// Whether an index of the table is one of those Stash names after table and columns.
    static func isManagedIndex(_ name: String, table: String) -> Bool {
        name.hasPrefix(table + "_") && (name.hasSuffix("_unique") || name.hasSuffix("_index"))
    }

    /// The plan for `model` against `stored`; throws ``StashCore/StashError/Code/migrationFailed``
    /// naming `Model.attribute` for a change no data can allow (the id retyped, a new
    /// required attribute without a default value). `additiveOnly` (a table that several
    /// models of the schema share, so that no one declaration is its schema) keeps the new
    /// columns and indexes and nothing else.
    static func make(_ model: ModelSchema, stored: StoredTable?, additiveOnly: Bool = false, path: String) throws -> TablePlan {
        var plan = TablePlan(model: model, stored: stored)
        guard let stored else {
            plan.createdIndexes = Array(Set(model.declaredIndexes().map(\.name)))
            return plan
        }
        let key = model.columns[model.idColumn]
        guard let storedKey = stored.column(key.name), storedKey.isPrimaryKey, storedKey.type == key.type.sqlType,
              !stored.columns.contains(where: { $0.isPrimaryKey && $0.name != key.name })
        else {
            throw StashError(
                .migrationFailed,
                "\(plan.key(key.name)): the table's primary key is not an \(key.type.sqlType) \(key.name) column; changing an id's type needs an explicit migration step; the file was left as it was",
                path: path, key: plan.key(key.name)
            )
        }
        plan.compareColumns(stored)
        if let missing = plan.addedColumns.first(where: { !$0.isOptional && model.defaults[$0.name] == nil }) {
            throw StashError(
                .migrationFailed,
                "\(plan.key(missing.name)) is new and neither optional nor given a default value: add .defaultValue(\\.\(missing.name), …) or an explicit migration step; the file was left as it was",
                path: path, key: plan.key(missing.name)
            )
        }
        try plan.compareForeignKeys(stored)
        if additiveOnly {
            plan.rebuildReasons = []
            plan.checks = []
            plan.droppedIndexes = []
        }
        plan.compareIndexes(stored)
        if additiveOnly { plan.droppedIndexes = [] }
        if plan.needsRebuild {
            plan.addedColumns = []
            plan.droppedIndexes = []
        }
        return plan
    }

    private mutating func compareColumns(_ stored: StoredTable) {
        for (index, column) in model.columns.enumerated() {
            guard let old = stored.column(column.name) else {
                addedColumns.append(column)
                continue
            }
            var expression = SQL.quote(column.name)
            if index != model.idColumn {
                if old.type != column.type.sqlType {
                    rebuildReasons.append("\(key(column.name)): \(old.type.isEmpty ? "no type" : old.type) → \(column.type.sqlType)")
                    checks.append(.converts(column: column.name, type: column.type.sqlType))
                    expression = ValueConversion.expression(column.name, to: column.type.sqlType)
                }
                let defaultSQL = model.defaults[column.name].map(SQL.literal)
                if old.isNotNull == column.isOptional {
                    rebuildReasons.append("\(key(column.name)): \(column.isOptional ? "required → optional" : "optional → required")")
                    if !column.isOptional {
                        if let defaultSQL { expression = "COALESCE(\(expression), \(defaultSQL))" } else { checks.append(.noNulls(column: column.name)) }
                    }
                }
                if old.defaultSQL != defaultSQL {
                    rebuildReasons.append("\(key(column.name)): default \(old.defaultSQL ?? "none") → \(defaultSQL ?? "none")")
                }
            }
            copied.append((column.name, expression))
        }
        for old in stored.columns where model.columnIndex[old.name] == nil {
            rebuildReasons.append("\(key(old.name)): dropped")
        }
    }

    /// Every to-one relationship's key as a foreign key: one added (an existing column that
    /// gains `belongsTo`, a new relationship), removed or given another rule is a rebuild;
    /// an added one must find every referenced object.
    private mutating func compareForeignKeys(_ stored: StoredTable) throws {
        var declared = Set<StoredTable.ForeignKey>()
        for relationship in model.relationships {
            guard case .toOne(let column) = relationship.kind else { continue }
            declared.insert(StoredTable.ForeignKey(column: column, table: try relationship.target().table, onDelete: relationship.deleteRule.sql))
        }
        for key in declared.subtracting(stored.foreignKeys) {
            let existed = stored.foreignKeys.contains { $0.column == key.column && $0.table == key.table }
            rebuildReasons.append("\(self.key(key.column)): \(existed ? "delete rule → \(key.onDelete)" : "foreign key to \(key.table)")")
            if !existed && stored.column(key.column) != nil { checks.append(.references(column: key.column, table: key.table)) }
        }
        for key in stored.foreignKeys.subtracting(declared) where !declared.contains(where: { $0.column == key.column && $0.table == key.table }) {
            rebuildReasons.append("\(self.key(key.column)): no foreign key to \(key.table)")
        }
    }

    /// Stash's indexes (named after table and columns) against the declaration; an index of
    /// another name is someone else's and is left alone (and recreated after a rebuild).
    private mutating func compareIndexes(_ stored: StoredTable) {
        var kept = Set<String>()
        for index in stored.indexes where index.origin == "c" && Self.isManagedIndex(index.name, table: model.table) {
            if let wanted = model.declaredIndexes().first(where: { $0.name == index.name }),
               wanted.isUnique == index.isUnique, wanted.columns == index.columns {
                kept.insert(index.name)
            } else {
                droppedIndexes.append(index.name)
            }
        }
        var seen = Set<String>()
        for index in model.declaredIndexes() where seen.insert(index.name).inserted && (needsRebuild || !kept.contains(index.name)) {
            createdIndexes.append(index.name)
            if index.isUnique && !kept.contains(index.name) && index.columns.allSatisfy({ stored.column($0) != nil }) {
                checks.append(.distinct(columns: index.columns))
            }
        }
    }
}
