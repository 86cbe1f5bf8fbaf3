import Foundation
import GRDB
import StashCore
import StashObjects
import StashTestSupport
import Testing

/// What hangs on a rebuilt table and must work after it: the full-text index (both kinds),
/// the change history, and indexes and triggers someone else created.
struct RebuildSurvivorsTests {
    struct PostV1: Model {
        var id: Int64?
        var title: String
        var draft: Int
        static let entity = ObjectEntity<PostV1>(table: "post").fullText(\.title)
    }

    struct Post: Model {
        var id: Int64?
        var title: String
        var draft: String
        static let entity = ObjectEntity<Post>(table: "post").fullText(\.title)
    }

    struct PageV1: Model {
        var id: String
        var title: String
        var size: Int
        static let entity = ObjectEntity<PageV1>(table: "page").fullText(\.title)
    }

    struct Page: Model {
        var id: String
        var title: String
        static let entity = ObjectEntity<Page>(table: "page").fullText(\.title)
    }

    @Test func fullTextSearchWorksAfterARebuild() throws {
        let fixture = try MigrationFixture("objects-migrate-fts", ObjectSchema(PostV1.self, PageV1.self, history: true)) { tx in
            try tx.insert(PostV1(id: nil, title: "swift migrations", draft: 1))
            try tx.insert(PostV1(id: nil, title: "sqlite tables", draft: 0))
            try tx.insert(PageV1(id: "p1", title: "swift pages", size: 3))
        }
        let schema = ObjectSchema(Post.self, Page.self, history: true)
        let store = try fixture.open(schema)
        #expect(try fixture.columns("post").contains("draft TEXT NOT NULL"))
        #expect(try fixture.columns("page") == ["id TEXT NOT NULL", "title TEXT NOT NULL"])
        #expect(try store.read { try $0.search(Post.self, matching: "swift") }.map(\.title) == ["swift migrations"])
        #expect(try store.read { try $0.search(Page.self, matching: "swift") }.map(\.id) == ["p1"])
        let token = try store.changeToken()
        try store.write { tx in
            try tx.insert(Post(id: nil, title: "swift rebuilt", draft: "no"))
            try tx.insert(Page(id: "p2", title: "swift again"))
            _ = try tx.delete(Post.self, id: 1)
        }
        #expect(try store.read { try $0.search(Post.self, matching: "swift") }.map(\.title) == ["swift rebuilt"])
        #expect(try Set(store.read { try $0.search(Page.self, matching: "swift") }.map(\.id)) == ["p1", "p2"])
        let changes = try store.changes(since: token)
        #expect(changes.inserted(Post.self) == [3])
        #expect(changes.deleted(Post.self) == [1])
        #expect(changes.inserted(Page.self) == ["p2"])
        try store.close()
        try fixture.expectSecondOpenWritesNothing(schema)
    }

    @Test func anotherProgramsIndexAndTriggerAreKept() throws {
        let fixture = try MigrationFixture("objects-migrate-foreign", ObjectSchema(PostV1.self)) { tx in
            try tx.insert(PostV1(id: nil, title: "one", draft: 1))
        }
        try fixture.holder.write { db in
            try db.execute(sql: "CREATE INDEX by_title ON post(title)")
            try db.execute(sql: "CREATE INDEX by_draft ON post(draft)")
            try db.execute(sql: "CREATE TABLE audit(title TEXT)")
            try db.execute(sql: "CREATE TRIGGER audit_insert AFTER INSERT ON post BEGIN INSERT INTO audit VALUES (new.title); END")
        }
        struct Slim: Model {
            var id: Int64?
            var title: String
            static let entity = ObjectEntity<Slim>(table: "post").fullText(\.title)
        }
        let store = try fixture.open(ObjectSchema(Slim.self))
        // by_draft indexed the dropped column and went with it.
        #expect(try fixture.indexes("post") == ["by_title"])
        try store.write { tx in try tx.insert(Slim(id: nil, title: "two")) }
        #expect(try fixture.holder.read { db in try String.fetchAll(db, sql: "SELECT title FROM audit") } == ["two"])
        try store.close()
    }
}
