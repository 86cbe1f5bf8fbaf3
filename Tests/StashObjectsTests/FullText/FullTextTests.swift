import Foundation
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
