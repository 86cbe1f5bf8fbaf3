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

/// A migration killed at each of its file calls in turn (`STASH_KILL_POINT`, SQLite's calls
/// counted through the observing VFS), from the first until a run ends without reaching the
/// point: each leaves the old schema or the new, every row, and opens at version 2.
@Suite(.timeLimit(.minutes(5)))
struct MigrationKillPointTests {
    @Test func aKillAtEveryCallOfAMigrationLeavesTheOldOrTheNewSchema() async throws {
        let rows = 300
        var outcomes: [String: Int] = [:]
        var completed = false
        for point in 1...3_000 {
            let folder = TemporaryFolder("objects-migrate-kill")
            let file = folder.file("crash.sqlite")
            try Self.seed(file, rows: rows)
            let child = try ChildProcess.testHost(
                "objects.migrate", file.path, environment: [FaultInjection.killPointVariable: "any:\(point):\(folder.url.path)"]
            )
            let lines = await child.allLines()
            let status = await child.exitStatus()
            let (columns, version, count, migratedCount) = try Self.inspect(file)
            let old = columns == ["id", "writer", "batch", "index", "text"] && version == 1
            let new = columns == ["id", "writer", "batch", "index"] && version == 2
            #expect(old || new, "kill point \(point): columns \(columns) at version \(version)")
            #expect(count == rows, "kill point \(point)")
            #expect(migratedCount == rows, "kill point \(point)")
            if status == 0 {
                #expect(lines == ["migrating", "migrated"])
                #expect(new)
                completed = true
                break
            }
            #expect(status == 128 + SIGKILL, "kill point \(point): \(child.standardError())")
            outcomes[old ? "old" : "new", default: 0] += 1
        }
        print("migration kill points: \(outcomes)")
        #expect(completed)
        #expect(outcomes["old", default: 0] >= 5)
    }

    /// A version 1 store of `rows` entries.
    static func seed(_ file: URL, rows: Int) throws {
        let store = try ObjectStore(url: file, schema: ObjectSchema(HostEntry.self))
        try store.write { tx in
            for index in 0..<rows { try tx.insert(HostEntry(id: nil, writer: "seed", batch: index % 10, index: index, text: "text \(index)")) }
        }
        try store.close()
    }

    /// The table's columns, the schema version and the row count, read with GRDB; then the
    /// row count once the store opened at version 2 (migrating if it must).
    static func inspect(_ file: URL) throws -> (columns: [String], version: Int, count: Int, migratedCount: Int) {
        let database = try DatabaseQueue(path: file.path)
        let (columns, version, count) = try database.read { db in
            (
                try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('entry')"),
                try Int.fetchOne(db, sql: "PRAGMA user_version") ?? -1,
                try Int.fetchOne(db, sql: "SELECT count(*) FROM entry") ?? -1
            )
        }
        try database.close()
        let store = try ObjectStore(url: file, schema: ObjectSchema(version: 2, HostEntryV2.self))
        defer { try? store.close() }
        return (columns, version, count, try store.count(HostEntryV2.query()))
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
