import Foundation
import StashCore
import StashTestSupport
import Testing

/// `stash objects` on the store the tour writes, and the tour's object-store step.
struct ObjectsCommandTests {
    static func run(_ arguments: String...) throws -> StashExecutable.Result { try StashExecutable.run(arguments) }

    @Test func tourThenInfoListExportImport() throws {
        let folder = TemporaryFolder("cli-objects")
        let root = folder.url.appendingPathComponent("tour").path
        let tour = try Self.run("tour", "--root", root)
        #expect(tour.status == 0, "\(tour.errors)")
        #expect(tour.output.contains("name LIKE '*Itcast-1*' sorted by age descending:\n    Itcast-12, 42\n    Itcast-11, 35"))
        #expect(tour.output.contains("cascade rule deleted the card too (11 cards left)"))
        let db = root + "/Library/Application Support/people.sqlite"

        let info = try Self.run("objects", "info", "--db", db)
        #expect(info.status == 0, "\(info.errors)")
        #expect(info.output.contains("schema version  2"))
        #expect(info.output.contains("person  11 rows"))
        #expect(info.output.contains("card  11 rows"))

        let list = try Self.run("objects", "query", "person", "--db", db, "--where", "age > 30", "--sort=-age", "--limit", "2")
        #expect(list.status == 0, "\(list.errors)")
        let lines = list.output.split(separator: "\n")
        #expect(lines.first == "id\tname\tage\temail")
        #expect(lines.count == 3)
        #expect(lines.dropFirst().map { String($0.split(separator: "\t")[2]) } == ["46", "44"])
        let bad = try Self.run("objects", "list", "person", "--db", db, "--where", "height > 3")
        #expect(bad.status != 0)

        let exported = folder.file("export.json").path
        #expect(try Self.run("objects", "export", "--db", db, "--output", exported).status == 0)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: exported))) as? [String: Any]
        #expect(json?["version"] as? Int == 2)
        #expect(((json?["tables"] as? [String: Any])?["person"] as? [Any])?.count == 11)
        // Importing the same rows again violates the primary keys: nothing is imported.
        let again = try Self.run("objects", "import", "--db", db, exported)
        #expect(again.status != 0)
        #expect(try Self.run("objects", "info", "--db", db).output.contains("person  11 rows"))
    }
}
