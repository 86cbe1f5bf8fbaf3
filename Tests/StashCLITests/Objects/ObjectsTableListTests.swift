import Foundation
import StashObjects
import StashTestSupport
import Testing

/// Models whose table names contain `_fts` read as a `LIKE` pattern (`_` is any character).
private struct Gift: Model {
    var id: Int64?
    var label: String
    static let entity = ObjectEntity<Gift>(table: "gifts")
}

private struct Draft: Model {
    var id: Int64?
    var text: String
    static let entity = ObjectEntity<Draft>(table: "drafts")
}

private struct Shift: Model {
    var id: Int64?
    var hours: Int
    static let entity = ObjectEntity<Shift>(table: "shifts")
}

/// A model with a full-text index: `post_fts` and its shadow tables must stay hidden.
private struct Post: Model {
    var id: UUID
    var title: String
    static let entity = ObjectEntity<Post>(table: "post").fullText(\.title)
}

/// `stash objects info` and `export` list every model's table and only those.
struct ObjectsTableListTests {
    @Test func tablesNamedLikeFullTextIndexesAreListedAndTheIndexesAreNot() throws {
        let folder = TemporaryFolder("cli-objects-tables")
        let url = folder.file("store.sqlite")
        let store = try ObjectStore(url: url, schema: ObjectSchema(Gift.self, Draft.self, Shift.self, Post.self))
        try store.write { tx in
            try tx.insert(Gift(id: nil, label: "book"))
            try tx.insert(Draft(id: nil, text: "hello"))
            try tx.insert(Shift(id: nil, hours: 8))
            try tx.insert(Post(id: UUID(), title: "Swift on Linux"))
        }
        try store.close()

        let info = try StashExecutable.run(["objects", "info", "--db", url.path])
        #expect(info.status == 0, "\(info.errors)")
        let listed = info.output.split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) }
        #expect(Set(listed).isSuperset(of: ["gifts", "drafts", "shifts", "post"]))
        #expect(!listed.contains { $0.hasPrefix("post_fts") })

        let exported = folder.file("export.json").path
        let export = try StashExecutable.run(["objects", "export", "--db", url.path, "--output", exported])
        #expect(export.status == 0, "\(export.errors)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: exported))) as? [String: Any]
        let tables = (json?["tables"] as? [String: Any]) ?? [:]
        #expect(Set(tables.keys) == ["gifts", "drafts", "shifts", "post"])
        #expect((tables["gifts"] as? [Any])?.count == 1)
        #expect((tables["shifts"] as? [Any])?.count == 1)
    }
}
