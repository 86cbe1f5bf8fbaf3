import Foundation
import GRDB
import StashCore

/// The FTS5 index of a model's full-text attributes, `<table>_fts`, kept in sync by
/// triggers and rebuilt on open whenever it does not match the declaration (first added,
/// an attribute added to or removed from `fullText`, a trigger missing).
///
/// FTS5 finds rows by an integer rowid, which must stay the same for as long as the row
/// lives. A model keyed by an integer (`Int64?`, `Int`…) has one: its `id` column is
/// `INTEGER PRIMARY KEY`, an alias of the rowid, and the index is an external-content table
/// over the model's table (no copy of the text). A `UUID`- or `String`-keyed table has only
/// SQLite's implicit rowid, which `VACUUM` may renumber (SQLite documents it) and a dump and
/// reload does; so those models get a key table `<table>_fts_keys("key" INTEGER PRIMARY
/// KEY, "id" UNIQUE)` that numbers their ids itself, and a contentless index whose rowid is
/// that `key` (the triggers hand FTS5 the old values it needs to delete an entry).
enum FullTextIndex {
    static func name(_ model: ModelSchema) -> String { model.table + "_fts" }
    static func keysName(_ model: ModelSchema) -> String { model.table + "_fts_keys" }
    static let triggerSuffixes = ["_insert", "_delete", "_update"]

    /// Whether the model's `id` is an alias of SQLite's rowid (`INTEGER PRIMARY KEY`).
    static func hasStableRowid(_ model: ModelSchema) -> Bool { model.columns[model.idColumn].type == .integer }

    /// Brings every model's index in line with its declaration (see ``isInstalled(_:db:)``),
    /// inside the migrator's transaction. Only an FTS5 table of ours and its key table are
    /// dropped: never a model's table that happens to carry such a name.
    static func install(_ models: [ModelSchema], db: Database) throws {
        let modelTables = Set(models.map(\.table))
        for model in models where try !isInstalled(model, db: db) {
            for suffix in triggerSuffixes { try db.execute(sql: "DROP TRIGGER IF EXISTS \(SQL.quote(name(model) + suffix))") }
            if try isVirtualTable(name(model), db: db) { try db.execute(sql: "DROP TABLE \(SQL.quote(name(model)))") }
            if !modelTables.contains(keysName(model)) { try db.execute(sql: "DROP TABLE IF EXISTS \(SQL.quote(keysName(model)))") }
            guard !model.fullTextColumns.isEmpty else { continue }
            if hasStableRowid(model) { try installExternalContent(model, db: db) } else { try installKeyed(model, db: db) }
        }
    }

    /// The quoted names the statements of an index are written with: the index, the
    /// model's table, the indexed columns, and the same as `new.` / `old.` in a trigger.
    private static func names(_ model: ModelSchema) -> (fts: String, table: String, list: String, new: String, old: String) {
        let columns = model.fullTextColumns.map(SQL.quote)
        return (
            SQL.quote(name(model)), SQL.quote(model.table), columns.joined(separator: ", "),
            columns.map { "new.\($0)" }.joined(separator: ", "), columns.map { "old.\($0)" }.joined(separator: ", ")
        )
    }

    /// Integer-keyed models: external content over the table, keyed by its rowid (the id).
    private static func installExternalContent(_ model: ModelSchema, db: Database) throws {
        let (fts, table, list, new, old) = names(model)
        try db.execute(sql: "CREATE VIRTUAL TABLE \(fts) USING fts5(\(list), content=\(SQL.literal(.text(model.table))), content_rowid='rowid')")
        try db.execute(sql: """
            CREATE TRIGGER \(SQL.quote(name(model) + "_insert")) AFTER INSERT ON \(table) BEGIN
              INSERT INTO \(fts)(rowid, \(list)) VALUES (new.rowid, \(new));
            END;
            CREATE TRIGGER \(SQL.quote(name(model) + "_delete")) AFTER DELETE ON \(table) BEGIN
              INSERT INTO \(fts)(\(fts), rowid, \(list)) VALUES ('delete', old.rowid, \(old));
            END;
            CREATE TRIGGER \(SQL.quote(name(model) + "_update")) AFTER UPDATE ON \(table) BEGIN
              INSERT INTO \(fts)(\(fts), rowid, \(list)) VALUES ('delete', old.rowid, \(old));
              INSERT INTO \(fts)(rowid, \(list)) VALUES (new.rowid, \(new));
            END;
            """)
        try db.execute(sql: "INSERT INTO \(fts)(\(fts)) VALUES ('rebuild')")
    }

    /// `UUID`/`String`-keyed models: a key table numbers the ids; the index is contentless.
    private static func installKeyed(_ model: ModelSchema, db: Database) throws {
        let (fts, table, list, new, old) = names(model)
        let keys = SQL.quote(keysName(model))
        let columns = model.fullTextColumns.map(SQL.quote)
        let idType = model.columns[model.idColumn].type.sqlType
        func key(_ row: String) -> String { "(SELECT \"key\" FROM \(keys) WHERE \"id\" = \(row).\"id\")" }
        try db.execute(sql: "CREATE TABLE \(keys) (\"key\" INTEGER PRIMARY KEY, \"id\" \(idType) NOT NULL UNIQUE)")
        try db.execute(sql: "CREATE VIRTUAL TABLE \(fts) USING fts5(\(list), content='')")
        // OR REPLACE: a row replaced by another program's INSERT OR REPLACE (whose implicit
        // delete fires no trigger) gets a fresh key; its old entry then maps to no row.
        try db.execute(sql: """
            CREATE TRIGGER \(SQL.quote(name(model) + "_insert")) AFTER INSERT ON \(table) BEGIN
              INSERT OR REPLACE INTO \(keys)("id") VALUES (new."id");
              INSERT INTO \(fts)(rowid, \(list)) VALUES (\(key("new")), \(new));
            END;
            CREATE TRIGGER \(SQL.quote(name(model) + "_delete")) AFTER DELETE ON \(table) BEGIN
              INSERT INTO \(fts)(\(fts), rowid, \(list)) VALUES ('delete', \(key("old")), \(old));
              DELETE FROM \(keys) WHERE "id" = old."id";
            END;
            CREATE TRIGGER \(SQL.quote(name(model) + "_update")) AFTER UPDATE ON \(table) BEGIN
              INSERT INTO \(fts)(\(fts), rowid, \(list)) VALUES ('delete', \(key("old")), \(old));
              UPDATE \(keys) SET "id" = new."id" WHERE "id" = old."id";
              INSERT INTO \(fts)(rowid, \(list)) VALUES (\(key("new")), \(new));
            END;
            """)
        try db.execute(sql: "INSERT INTO \(keys)(\"id\") SELECT \"id\" FROM \(table) ORDER BY rowid")
        let selected = columns.map { "t.\($0)" }.joined(separator: ", ")
        try db.execute(sql: "INSERT INTO \(fts)(rowid, \(list)) SELECT k.\"key\", \(selected) FROM \(keys) k JOIN \(table) t ON t.\"id\" = k.\"id\"")
    }

    /// Whether the model's index is there and matches its declaration: the attributes in
    /// order, the key table for a model without a stable rowid, the three triggers. A model
    /// without full-text attributes is installed when no index is left over.
    static func isInstalled(_ model: ModelSchema, db: Database) throws -> Bool {
        guard try isVirtualTable(name(model), db: db) else { return model.fullTextColumns.isEmpty }
        let indexed = try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [name(model)])
        guard indexed == model.fullTextColumns else { return false }
        if try !hasStableRowid(model) && !db.tableExists(keysName(model)) { return false }
        for suffix in triggerSuffixes where try !db.triggerExists(name(model) + suffix) { return false }
        return true
    }

    private static func isVirtualTable(_ name: String, db: Database) throws -> Bool {
        let sql = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", arguments: [name])
        return sql?.uppercased().hasPrefix("CREATE VIRTUAL TABLE") == true
    }

    static func isInstalled(_ models: [ModelSchema], db: Database) throws -> Bool {
        try models.allSatisfy { try isInstalled($0, db: db) }
    }

    /// Words of the user's text as FTS5 phrases, all required: no FTS5 syntax gets through.
    static func match(_ text: String) -> String {
        text.split(whereSeparator: { $0.isWhitespace })
            .map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
            .joined(separator: " ")
    }
}

extension ObjectReader {
    /// The objects of `type` whose full-text attributes contain every word of `text`
    /// (prefixes do not match; case and diacritics-insensitive per FTS5's `unicode61`),
    /// best match first (BM25).
    ///
    /// ```swift
    /// let hits = try store.read { try $0.search(Article.self, matching: "swift linux", limit: 20) }
    /// ```
    ///
    /// - throws: ``StashCore/StashError/Code/unknownAttribute`` when the model has no full-text
    ///   attribute (`ObjectEntity.fullText(_:)`).
    public func search<M: Model>(_ type: M.Type, matching text: String, limit: Int = 100) throws -> [M] {
        let schema = try store.schema(for: M.self)
        guard !schema.fullTextColumns.isEmpty else {
            throw StashError(.unknownAttribute, "\(schema.modelName) has no full-text attribute; declare them with ObjectEntity.fullText", key: schema.modelName)
        }
        let phrase = FullTextIndex.match(text)
        guard !phrase.isEmpty else { return [] }
        let fts = SQL.quote(FullTextIndex.name(schema))
        let columns = schema.columns.map { "t." + SQL.quote($0.name) }.joined(separator: ", ")
        let join = FullTextIndex.hasStableRowid(schema)
            ? "\(fts) ON \(fts).rowid = t.rowid"
            : "\(SQL.quote(FullTextIndex.keysName(schema))) k ON k.\"id\" = t.\"id\" JOIN \(fts) ON \(fts).rowid = k.\"key\""
        let sql = "SELECT \(columns) FROM \(SQL.quote(schema.table)) t JOIN \(join) WHERE \(fts) MATCH ? ORDER BY bm25(\(fts)) LIMIT \(Swift.max(0, limit))"
        return try fetch(sql: sql, arguments: [.text(phrase)], schema: schema)
    }
}
