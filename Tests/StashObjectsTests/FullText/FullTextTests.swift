import Foundation
import GRDB
import StashCore
import StashObjects
import StashTestSupport
import Testing

struct Article: Model, Equatable {
    var id: UUID
    var title: String
    var body: String
    static let entity = ObjectEntity<Article>().fullText(\.title, \.body)
}

/// FTS5 search: ranked, kept in sync with inserts, updates and deletes, user text never
/// parsed as FTS5 syntax.
struct FullTextTests {
    @Test func searchIsRankedAndFollowsWrites() throws {
        let folder = TemporaryFolder("objects-fts")
        let store = try folder.objectStore(ObjectSchema(Article.self))
        let swift = Article(id: UUID(), title: "Swift on Linux", body: "Swift runs on Linux servers. Swift everywhere.")
        let grdb = Article(id: UUID(), title: "GRDB", body: "A toolkit for SQLite databases, written in Swift.")
        let cooking = Article(id: UUID(), title: "Pasta", body: "Boil water.")
        try store.write { tx in try tx.insert(contentsOf: [swift, grdb, cooking]) }
        #expect(try store.read { try $0.search(Article.self, matching: "swift") } == [swift, grdb])
        #expect(try store.read { try $0.search(Article.self, matching: "SQLite swift") } == [grdb])
        #expect(try store.read { try $0.search(Article.self, matching: "\"unbalanced AND (") }.isEmpty)
        try store.write { tx in
            try tx.update(Article(id: cooking.id, title: "Pasta with Swift", body: "Boil water."))
            try tx.delete(swift)
        }
        #expect(try Set(store.read { try $0.search(Article.self, matching: "swift") }.map(\.title)) == ["GRDB", "Pasta with Swift"])
        #expect(errorCode { try store.read { try $0.search(Person.self, matching: "x") } } == .unknownModel)
    }
}

/// A document indexed on its title only, then (version 2 of the same table) on its body too.
struct Doc: Model, Equatable {
    var id: String
    var title: String
    var body: String
    static let entity = ObjectEntity<Doc>(table: "doc").fullText(\.title)
}

struct DocV2: Model, Equatable {
    var id: String
    var title: String
    var body: String
    static let entity = ObjectEntity<DocV2>(table: "doc").fullText(\.title, \.body)
}

extension FullTextTests {
    /// The rows of `table` renumbered the way SQLite allows `VACUUM` to renumber the implicit
    /// rowids of a table without `INTEGER PRIMARY KEY` (its documented copy, `INSERT INTO …
    /// SELECT * FROM …`, with every other table, the full-text index's included, kept as it
    /// was; the triggers are not part of the copy).
    static func renumberRowids(_ table: String, in raw: DatabaseQueue) throws {
        try raw.write { db in
            let triggers = try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?", arguments: [table])
            for trigger in triggers { try db.execute(sql: "DROP TRIGGER \"\(trigger["name"] as String)\"") }
            try db.execute(sql: """
                CREATE TEMP TABLE copied AS SELECT * FROM "\(table)" ORDER BY rowid;
                DELETE FROM "\(table)";
                INSERT INTO "\(table)" SELECT * FROM copied;
                DROP TABLE copied;
                """)
            for trigger in triggers { try db.execute(sql: trigger["sql"] as String) }
        }
    }

    /// A `UUID`-keyed model's search maps every hit to the right object after deletes,
    /// `VACUUM`, and a renumbering of the table's implicit rowids.
    @Test func searchFollowsUUIDKeyedObjectsAcrossVacuumAndRenumberedRowids() throws {
        let folder = TemporaryFolder("objects-fts-vacuum")
        let store = try folder.objectStore(ObjectSchema(Article.self))
        let words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]
        let articles = words.map { Article(id: UUID(), title: "About \($0)", body: "All about \($0) and more.") }
        try store.write { tx in try tx.insert(contentsOf: articles) }
        try store.write { tx in for article in articles.prefix(3) { try tx.delete(article) } }
        let raw = try folder.rawDatabase()
        try raw.writeWithoutTransaction { db in try db.execute(sql: "VACUUM") }
        let kept = Array(articles.dropFirst(3))
        for article in kept {
            let word = article.title.split(separator: " ").last.map(String.init) ?? ""
            #expect(try store.read { try $0.search(Article.self, matching: word) } == [article], "after VACUUM: \(word)")
        }
        let before = try raw.read { db in try Int64.fetchAll(db, sql: "SELECT rowid FROM article ORDER BY rowid") }
        try Self.renumberRowids("article", in: raw)
        let after = try raw.read { db in try Int64.fetchAll(db, sql: "SELECT rowid FROM article ORDER BY rowid") }
        #expect(before != after, "the rowids were not renumbered, so the test proved nothing")
        for article in kept {
            let word = article.title.split(separator: " ").last.map(String.init) ?? ""
            #expect(try store.read { try $0.search(Article.self, matching: word) } == [article], "after renumbering: \(word)")
        }
        for article in articles.prefix(3) {
            let word = article.title.split(separator: " ").last.map(String.init) ?? ""
            #expect(try store.read { try $0.search(Article.self, matching: word) }.isEmpty, "deleted: \(word)")
        }
        // Writes after the renumbering keep the index in step.
        try store.write { tx in
            try tx.update(Article(id: kept[0].id, title: "Renamed", body: "Nothing else."))
            try tx.delete(kept[1])
        }
        #expect(try store.read { try $0.search(Article.self, matching: "renamed") }.map(\.id) == [kept[0].id])
        #expect(try store.read { try $0.search(Article.self, matching: "echo") }.isEmpty)
        #expect(try store.read { try $0.search(Article.self, matching: "foxtrot") }.map(\.id) == [kept[2].id])
        try raw.close()
        try store.close()
    }

    /// An attribute added to `fullText` later is indexed when the store opens, rows written
    /// before included; one left out is no longer searched.
    @Test func attributesAddedToTheIndexLaterAreSearched() throws {
        let folder = TemporaryFolder("objects-fts-added")
        let first = try folder.objectStore(ObjectSchema(Doc.self))
        try first.write { tx in
            try tx.insert(Doc(id: "a", title: "Swift", body: "servers on linux"))
            try tx.insert(Doc(id: "b", title: "Pasta", body: "boil water"))
        }
        #expect(try first.read { try $0.search(Doc.self, matching: "linux") }.isEmpty)
        try first.close()
        let second = try folder.objectStore(ObjectSchema(DocV2.self))
        #expect(try second.read { try $0.search(DocV2.self, matching: "linux") }.map(\.id) == ["a"])
        try second.write { tx in try tx.insert(DocV2(id: "c", title: "Kernel", body: "linux internals")) }
        #expect(try Set(second.read { try $0.search(DocV2.self, matching: "linux") }.map(\.id)) == ["a", "c"])
        try second.close()
        let again = try folder.objectStore(ObjectSchema(Doc.self))
        #expect(try again.read { try $0.search(Doc.self, matching: "linux") }.isEmpty)
        #expect(try again.read { try $0.search(Doc.self, matching: "kernel") }.map(\.id) == ["c"])
        try again.close()
    }
}
