import Foundation
import GRDB
import StashCore

/// The FTS5 index of a model's full-text attributes: an external-content FTS5 table
/// `<table>_fts` over the model's table (no copy of the text), kept in sync by triggers,
/// rebuilt when it is first added to an existing table.
enum FullTextIndex {
    static func name(_ model: ModelSchema) -> String { model.table + "_fts" }

    static func install(_ models: [ModelSchema], db: Database) throws {
        for model in models where !model.fullTextColumns.isEmpty {
            let fts = SQL.quote(name(model))
            if try db.tableExists(name(model)) { continue }
            let columns = model.fullTextColumns.map(SQL.quote)
            let list = columns.joined(separator: ", ")
            let table = SQL.quote(model.table)
            let new = columns.map { "new.\($0)" }.joined(separator: ", ")
            let old = columns.map { "old.\($0)" }.joined(separator: ", ")
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
    }

    static func isInstalled(_ models: [ModelSchema], db: Database) throws -> Bool {
        for model in models where !model.fullTextColumns.isEmpty {
            if try !db.tableExists(name(model)) { return false }
        }
        return true
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
    /// - throws: ``StashError/Code/unknownAttribute`` when the model has no full-text
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
        let sql = "SELECT \(columns) FROM \(SQL.quote(schema.table)) t JOIN \(fts) ON \(fts).rowid = t.rowid WHERE \(fts) MATCH ? ORDER BY bm25(\(fts)) LIMIT \(Swift.max(0, limit))"
        return try fetch(sql: sql, arguments: [.text(phrase)], schema: schema)
    }
}
