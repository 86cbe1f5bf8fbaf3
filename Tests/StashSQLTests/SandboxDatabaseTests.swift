import Foundation
import GRDB
import StashCore
import StashSQL
import StashTestSupport
import Testing

struct SandboxDatabaseTests {
    @Test func opensNamedDatabasesInTheSandboxWithDefaults() throws {
        let folder = TemporaryFolder("sql")
        let sandbox = folder.sandbox()
        let queue = try sandbox.databaseQueue("notes")
        #expect(queue.path == sandbox.documents.appendingPathComponent("notes.sqlite").path)
        #expect(try queue.read(Self.settings) == ["wal", "1", "5000"])
        let pool = try sandbox.databasePool("cache.db", in: .caches, busyTimeout: 2)
        #expect(pool.path == sandbox.caches.appendingPathComponent("cache.db").path)
        #expect(try pool.write(Self.settings) == ["wal", "1", "2000"])
    }

    /// Journal mode, foreign keys and busy timeout (ms) of a connection.
    static func settings(_ db: Database) throws -> [String?] {
        try [
            String.fetchOne(db, sql: "PRAGMA journal_mode"),
            Int.fetchOne(db, sql: "PRAGMA foreign_keys").map(String.init),
            Int.fetchOne(db, sql: "PRAGMA busy_timeout").map(String.init),
        ]
    }

    @Test(arguments: ["", "..", "../escape", "a/b", ".hidden", "bad\u{1}name"])
    func refusesPathTricks(name: String) {
        let folder = TemporaryFolder("sql")
        let error = #expect(throws: StashError.self) { try folder.sandbox().databaseQueue(name) }
        #expect(error?.code == .invalidName)
    }

    @Test func aFileThatIsNotADatabaseIsATypedError() throws {
        let folder = TemporaryFolder("sql")
        let sandbox = folder.sandbox()
        try FileStore.write(Data(repeating: 0x41, count: 4096), to: sandbox.databaseURL("junk"))
        let error = #expect(throws: StashError.self) {
            let queue = try sandbox.databaseQueue("junk")
            try queue.read { db in _ = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master") }
        }
        #expect(error?.code == .databaseUnavailable)
        #expect(error?.path?.hasSuffix("junk.sqlite") == true)
    }

    @Test func foreignKeysAreEnforced() throws {
        let folder = TemporaryFolder("sql")
        let queue = try folder.sandbox().databaseQueue("shop")
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE author(id INTEGER PRIMARY KEY)")
            try db.execute(sql: "CREATE TABLE book(id INTEGER PRIMARY KEY, authorId INTEGER NOT NULL REFERENCES author(id))")
        }
        #expect(throws: DatabaseError.self) {
            try queue.write { db in try db.execute(sql: "INSERT INTO book(authorId) VALUES (42)") }
        }
    }
}
