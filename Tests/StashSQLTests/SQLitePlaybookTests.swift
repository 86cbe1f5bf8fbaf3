import Foundation
import GRDB
import StashCore
import StashSQL
import StashTestSupport
import Testing

/// The playbook's SQLite flow, end to end, on GRDB's own API: create, insert, update,
/// delete, a parameterized LIKE, a transaction that rolls back, reads during a write.
struct SQLitePlaybookTests {
    static func makeTable(_ writer: some DatabaseWriter) throws {
        try writer.write { db in
            try db.execute(sql: """
                CREATE TABLE contact(
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    name TEXT NOT NULL UNIQUE,
                    phone TEXT
                )
                """)
        }
    }

    @Test func createInsertUpdateDeleteAndLike() throws {
        let folder = TemporaryFolder("sql")
        let db = try folder.sandbox().databaseQueue("contacts")
        try Self.makeTable(db)
        try db.write { db in
            for (name, phone) in [("Ada Lovelace", "100"), ("Alan Turing", "200"), ("Grace Hopper", "300")] {
                try db.execute(sql: "INSERT INTO contact(name, phone) VALUES (?, ?)", arguments: [name, phone])
            }
            try db.execute(sql: "UPDATE contact SET phone = ? WHERE name = ?", arguments: ["999", "Alan Turing"])
            try db.execute(sql: "DELETE FROM contact WHERE name = ?", arguments: ["Grace Hopper"])
        }
        // A user-typed fragment goes in as an argument, never into the SQL text.
        let typed = "a%' OR 1=1 --"
        let (count, phone, injected, matches, startsWithA) = try db.read { db in
            try (
                Int.fetchOne(db, sql: "SELECT COUNT(*) FROM contact"),
                String.fetchOne(db, sql: "SELECT phone FROM contact WHERE name = 'Alan Turing'"),
                String.fetchAll(db, sql: "SELECT name FROM contact WHERE name LIKE ?", arguments: ["%\(typed)%"]),
                String.fetchAll(db, sql: "SELECT name FROM contact WHERE name LIKE ? ORDER BY name", arguments: ["%lo%"]),
                String.fetchAll(db, sql: "SELECT name FROM contact WHERE name LIKE ? ORDER BY name", arguments: ["A%"])
            )
        }
        #expect(count == 2)
        #expect(phone == "999")
        #expect(injected.isEmpty)
        #expect(matches == ["Ada Lovelace"])
        #expect(startsWithA == ["Ada Lovelace", "Alan Turing"])
    }

    @Test func aFailingTransactionRollsBack() throws {
        let folder = TemporaryFolder("sql")
        let db = try folder.sandbox().databaseQueue("contacts")
        try Self.makeTable(db)
        try db.write { db in try db.execute(sql: "INSERT INTO contact(name) VALUES ('Ada')") }
        #expect(throws: DatabaseError.self) {
            try db.inTransaction { db in
                try db.execute(sql: "INSERT INTO contact(name) VALUES ('Alan')")
                try db.execute(sql: "UPDATE contact SET phone = '1' WHERE name = 'Ada'")
                try db.execute(sql: "INSERT INTO contact(name) VALUES ('Ada')")  // UNIQUE fails
                return .commit
            }
        }
        let (names, phones) = try db.read { db in
            try (String.fetchAll(db, sql: "SELECT name FROM contact"), Row.fetchAll(db, sql: "SELECT phone FROM contact"))
        }
        #expect(names == ["Ada"])
        #expect(phones.map { $0["phone"] as String? } == [nil])
        // The file survives reopening with the same content.
        let reopened = try folder.sandbox().databaseQueue("contacts")
        #expect(try reopened.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM contact") } == 1)
    }

    /// While a write transaction is open (and not committed), readers of the pool keep
    /// working and see the last committed state. Threads, not tasks: the writer blocks.
    @Test func readsRunDuringAWrite() throws {
        let folder = TemporaryFolder("sql")
        let pool = try folder.sandbox().databasePool("contacts")
        try Self.makeTable(pool)
        try pool.write { db in try db.execute(sql: "INSERT INTO contact(name) VALUES ('Ada')") }

        let writerInside = DispatchSemaphore(value: 0)
        let readersDone = DispatchSemaphore(value: 0)
        let writerFinished = DispatchSemaphore(value: 0)
        let writerError = LockedBox<(any Error)?>(nil)
        DispatchQueue.global().async {
            do {
                try pool.write { db in
                    try db.execute(sql: "INSERT INTO contact(name) VALUES ('Alan')")
                    writerInside.signal()
                    readersDone.wait()  // hold the transaction open until the readers are done
                }
            } catch {
                writerError.set(error)
            }
            writerFinished.signal()
        }
        writerInside.wait()
        let counts = LockedBox<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            let count = (try? pool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM contact") }) ?? nil
            counts.update { $0.append(count ?? -1) }
        }
        readersDone.signal()
        writerFinished.wait()
        #expect(writerError.value == nil)
        #expect(counts.value == [1, 1, 1, 1])
        #expect(try pool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM contact") } == 2)
    }

    /// Two connections to one file: the busy timeout makes the second writer wait for the
    /// first instead of failing with SQLITE_BUSY.
    @Test func aSecondConnectionWaitsForTheLock() throws {
        let folder = TemporaryFolder("sql")
        let sandbox = folder.sandbox()
        let first = try sandbox.databaseQueue("shared")
        let second = try sandbox.databaseQueue("shared")
        try Self.makeTable(first)
        let holding = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            try? first.write { db in
                try db.execute(sql: "INSERT INTO contact(name) VALUES ('first')")
                holding.signal()
                Thread.sleep(forTimeInterval: 0.3)
            }
            finished.signal()
        }
        holding.wait()
        try second.write { db in try db.execute(sql: "INSERT INTO contact(name) VALUES ('second')") }
        finished.wait()
        #expect(try first.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM contact") } == 2)
    }
}

/// A value shared with other threads in a test.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.withLock { stored } }
    func set(_ value: Value) { lock.withLock { stored = value } }
    func update(_ body: (inout Value) -> Void) { lock.withLock { body(&stored) } }
}
