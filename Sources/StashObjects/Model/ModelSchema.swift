import Foundation
import StashCore

/// Everything StashObjects knows about one model, resolved once per type: its table, its
/// columns in declaration order, its key, its indexes and relationships, and the SQL it
/// reuses for every row.
final class ModelSchema: @unchecked Sendable {
    let modelName: String
    let type: ObjectIdentifier
    let table: String
    let columns: [Column]
    let columnIndex: [String: Int]
    let idColumn: Int
    let isAutoIncremented: Bool
    let uniqueColumns: [[String]]
    let indexedColumns: [[String]]
    let defaults: [String: ObjectStore.StoredValue]
    let fullTextColumns: [String]
    let relationships: [Relationship]
    /// `"a", "b", …` in declaration order.
    let selectList: String
    /// `INSERT INTO t("a", "b") VALUES (?1, ?2)`.
    let insertSQL: String
    /// `UPDATE t SET "b" = ?2 WHERE "id" = ?1`.
    let updateSQL: String
    /// `INSERT … ON CONFLICT("id") DO UPDATE SET …`.
    let upsertSQL: String
    /// Key paths are immutable values; the dictionary is never mutated after init.
    let keyPathNames: [AnyKeyPath: String]
    /// Named relationships already resolved by ``relation(named:)``.
    let namedRelations = LockedValue<[String: NamedRelation]>([:])

    init(
        modelName: String, type: ObjectIdentifier, table: String, columns: [Column], columnIndex: [String: Int],
        idColumn: Int, isAutoIncremented: Bool, uniqueColumns: [[String]], indexedColumns: [[String]],
        defaults: [String: ObjectStore.StoredValue], fullTextColumns: [String], relationships: [Relationship],
        selectList: String, insertSQL: String, updateSQL: String, upsertSQL: String, keyPathNames: [AnyKeyPath: String]
    ) {
        self.modelName = modelName
        self.type = type
        self.table = table
        self.columns = columns
        self.columnIndex = columnIndex
        self.idColumn = idColumn
        self.isAutoIncremented = isAutoIncremented
        self.uniqueColumns = uniqueColumns
        self.indexedColumns = indexedColumns
        self.defaults = defaults
        self.fullTextColumns = fullTextColumns
        self.relationships = relationships
        self.selectList = selectList
        self.insertSQL = insertSQL
        self.updateSQL = updateSQL
        self.upsertSQL = upsertSQL
        self.keyPathNames = keyPathNames
    }

    private static let cache = LockedValue<[ObjectIdentifier: ModelSchema]>([:])

    static func of<M: Model>(_ type: M.Type) throws -> ModelSchema {
        let id = ObjectIdentifier(type)
        if let known = cache.withLock({ $0[id] }) { return known }
        let schema = try resolve(type)
        cache.withLock { $0[id] = schema }
        return schema
    }

    private static func resolve<M: Model>(_ type: M.Type) throws -> ModelSchema {
        let name = String(describing: M.self)
        let entity = M.entity
        if let unknown = entity.unknownKeyPaths.first {
            throw StashError(.unknownAttribute, "\(name): \(unknown) is not a stored property of the model", key: name)
        }
        let columns = try SchemaProbe.columns(of: type)
        var columnIndex: [String: Int] = [:]
        for (index, column) in columns.enumerated() { columnIndex[column.name] = index }
        guard let idColumn = columnIndex["id"] else {
            throw StashError(.unknownAttribute, "\(name): the id property is not encoded (CodingKeys must include it)", key: "\(name).id")
        }
        for name in (entity.uniqueColumns + entity.indexedColumns).flatMap({ $0 }) + entity.fullTextColumns + entity.defaults.keys.map({ $0 }) {
            guard columnIndex[name] != nil else {
                throw StashError(.unknownAttribute, "\(M.self).\(name) is not stored (it is not in CodingKeys)", key: "\(M.self).\(name)")
            }
        }
        let relationships = try NamedRelationships.settle(
            entity.relationships.map { try $0.resolved(columns: columns, columnIndex: columnIndex, model: name) },
            table: entity.table, type: ObjectIdentifier(type), model: name
        )
        let table = SQL.quote(entity.table)
        let quoted = columns.map { SQL.quote($0.name) }
        let parameters = columns.indices.map { "?\($0 + 1)" }
        let others = columns.indices.filter { $0 != idColumn }
        let assignments = others.map { "\(quoted[$0]) = ?\($0 + 1)" }.joined(separator: ", ")
        let updateSQL = others.isEmpty
            ? "UPDATE \(table) SET \(quoted[idColumn]) = ?\(idColumn + 1) WHERE \(quoted[idColumn]) = ?\(idColumn + 1)"
            : "UPDATE \(table) SET \(assignments) WHERE \(quoted[idColumn]) = ?\(idColumn + 1)"
        let insertSQL = "INSERT INTO \(table)(\(quoted.joined(separator: ", "))) VALUES (\(parameters.joined(separator: ", ")))"
        let upsertSQL = insertSQL + " ON CONFLICT(\(quoted[idColumn])) DO " + (others.isEmpty
            ? "NOTHING"
            : "UPDATE SET " + others.map { "\(quoted[$0]) = excluded.\(quoted[$0])" }.joined(separator: ", "))
        return ModelSchema(
            modelName: name,
            type: ObjectIdentifier(type),
            table: entity.table,
            columns: columns,
            columnIndex: columnIndex,
            idColumn: idColumn,
            isAutoIncremented: M.ID.isAutoIncremented,
            uniqueColumns: entity.uniqueColumns,
            indexedColumns: entity.indexedColumns,
            defaults: entity.defaults,
            fullTextColumns: entity.fullTextColumns,
            relationships: relationships,
            selectList: quoted.joined(separator: ", "),
            insertSQL: insertSQL,
            updateSQL: updateSQL,
            upsertSQL: upsertSQL,
            keyPathNames: PropertyNames.names(of: type)
        )
    }

    /// The column a key path reaches, or ``StashCore/StashError/Code/unknownAttribute`` naming the model.
    func column(_ keyPath: AnyKeyPath) throws -> String {
        guard let name = keyPathNames[keyPath], columnIndex[name] != nil else {
            let described = keyPathNames[keyPath].map { "\(modelName).\($0)" } ?? "\(keyPath)"
            throw StashError(.unknownAttribute, "\(described) is not a stored attribute of \(modelName)", key: described)
        }
        return name
    }

    /// `CREATE TABLE` for this model, named `name` (the model's table by default; the
    /// migrator builds a table under another name before swapping it in).
    func createTableSQL(named name: String? = nil) -> String {
        var parts: [String] = []
        for (index, column) in columns.enumerated() {
            parts.append(columnDefinition(column, isKey: index == idColumn))
        }
        for relationship in relationships {
            if case .toOne(let column) = relationship.kind, let target = try? relationship.target() {
                parts.append("FOREIGN KEY(\(SQL.quote(column))) REFERENCES \(SQL.quote(target.table))(\"id\") ON DELETE \(relationship.deleteRule.sql)")
            }
        }
        return "CREATE TABLE \(SQL.quote(name ?? table)) (\n  \(parts.joined(separator: ",\n  "))\n)"
    }

    func columnDefinition(_ column: Column, isKey: Bool) -> String {
        var definition = "\(SQL.quote(column.name)) \(column.type.sqlType)"
        if isKey {
            definition += isAutoIncremented ? " PRIMARY KEY AUTOINCREMENT" : " PRIMARY KEY NOT NULL"
            return definition
        }
        if !column.isOptional { definition += " NOT NULL" }
        if let value = defaults[column.name] { definition += " DEFAULT \(SQL.literal(value))" }
        return definition
    }

    /// The indexes the declaration asks for, named after table and columns: `unique`, then
    /// `indexed`, then one per to-one relationship's key.
    func declaredIndexes() -> [(name: String, isUnique: Bool, columns: [String])] {
        var indexes: [(name: String, isUnique: Bool, columns: [String])] = []
        for (unique, groups) in [(true, uniqueColumns), (false, indexedColumns)] {
            for columns in groups where !columns.isEmpty {
                indexes.append(("\(table)_\(columns.joined(separator: "_"))_\(unique ? "unique" : "index")", unique, columns))
            }
        }
        for relationship in relationships {
            if case .toOne(let column) = relationship.kind {
                // A one-to-one's key is unique: at most one object points at each target.
                let unique = relationship.isUniqueKey
                indexes.append(("\(table)_\(column)_\(unique ? "unique" : "index")", unique, [column]))
            }
        }
        return indexes
    }

    /// Index statements (`CREATE [UNIQUE] INDEX IF NOT EXISTS`) of ``declaredIndexes()``.
    func indexSQL() -> [String] {
        declaredIndexes().map { index in
            "CREATE \(index.isUnique ? "UNIQUE " : "")INDEX IF NOT EXISTS \(SQL.quote(index.name)) ON \(SQL.quote(table))(\(index.columns.map(SQL.quote).joined(separator: ", ")))"
        }
    }
}

/// SQL text helpers: identifiers are always quoted, values always bound (literals only in
/// `DEFAULT` clauses).
enum SQL {
    static func quote(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    static func literal(_ value: ObjectStore.StoredValue) -> String {
        switch value {
        case .null: "NULL"
        case .integer(let value): String(value)
        case .real(let value): value.isFinite ? "\(value)" : "NULL"
        case .text(let value): "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let value): "X'" + value.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }
}
