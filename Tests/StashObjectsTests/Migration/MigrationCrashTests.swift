import Foundation
import GRDB
import StashCore
import StashObjects
import StashTestSupport
import Testing

/// A child process killed with SIGKILL while it rebuilds a table (`stash-testhost
/// objects.migrate`) leaves the old schema with the old version or the new schema with the
/// new one, every row in either, never a mix or a half-copied table.
@Suite(.timeLimit(.minutes(5)))
struct MigrationCrashTests {
    @Test func aKilledMigrationLeavesTheOldOrTheNewSchema() throws {
        let rows = 10_000
        var outcomes: [String] = []
        for (round, delay) in [0, 20_000, 60_000, 150_000].enumerated() {
            let folder = TemporaryFolder("objects-migrate-crash")
            let file = folder.file("crash.sqlite")
            do {
                let store = try ObjectStore(url: file, schema: ObjectSchema(HostEntry.self))
                let text = String(repeating: "x", count: 100)
                try store.write { tx in
                    for index in 0..<rows { try tx.insert(HostEntry(id: nil, writer: "seed", batch: index % 100, index: index, text: text)) }
                }
                try store.close()
            }
            let child = try ChildProcess.testHost("objects.migrate", file.path)
            #expect(child.readLine() == "migrating")
            usleep(UInt32(delay))
            child.kill()
            _ = child.wait()
            let database = try DatabaseQueue(path: file.path)
            let (columns, version, count, leftovers) = try database.read { db in
                (
                    try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('entry')"),
                    try Int.fetchOne(db, sql: "PRAGMA user_version") ?? -1,
                    try Int.fetchOne(db, sql: "SELECT count(*) FROM entry") ?? -1,
                    try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE name LIKE 'stash\\_migrating%' ESCAPE '\\'")
                )
            }
            try database.close()
            let old = columns == ["id", "writer", "batch", "index", "text"] && version == 1
            let new = columns == ["id", "writer", "batch", "index"] && version == 2
            #expect(old || new, "round \(round): columns \(columns) at version \(version)")
            #expect(count == rows, "round \(round)")
            #expect(leftovers.isEmpty, "round \(round): \(leftovers)")
            outcomes.append(old ? "old" : "new")
            let store = try ObjectStore(url: file, schema: ObjectSchema(version: 2, HostEntryV2.self))
            #expect(try store.count(HostEntryV2.query()) == rows)
            #expect(try store.count(HostEntryV2.query().filter(\.batch == "7")) == rows / 100)
            try store.close()
        }
        print("killed migrations left: \(outcomes)")
    }
}

/// `HostEntry` after the migration `objects.migrate` runs (the test host's declaration).
struct HostEntryV2: Model {
    var id: Int64?
    var writer: String
    var batch: String
    var index: Int
    static let entity = ObjectEntity<HostEntryV2>(table: "entry").indexed(\.batch)
}
