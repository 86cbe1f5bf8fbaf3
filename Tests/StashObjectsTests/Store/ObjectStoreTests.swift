import Foundation
import GRDB
import StashCore
import StashObjects
import StashTestSupport
import Testing

/// Inserts, updates, upserts, deletes and batch changes in write transactions, checked
/// against the file with plain SQL; failures are typed and write nothing.
struct ObjectStoreTests {
    static func people() -> [Person] {
        [
            Person(id: nil, name: "Itcast-1", age: 20),
            Person(id: nil, name: "Itcast-10", age: 35, nickname: "ten"),
            Person(id: nil, name: "Itcast-2", age: 28),
            Person(id: nil, name: "Grace", age: 85, nickname: "Amazing"),
        ]
    }

    @Test func insertAssignsIdsAndUpdateUpsertDeleteWrite() throws {
        let folder = TemporaryFolder("objects-store")
        let store = try folder.objectStore(ObjectSchema(Person.self))
        let inserted = try store.write { tx in try tx.insert(contentsOf: Self.people()) }
        #expect(inserted.map(\.id) == [1, 2, 3, 4])
        try store.write { tx in
            var first = inserted[0]
            first.age = 21
            try tx.update(first)
            try tx.upsert(Person(id: 2, name: "Itcast-10", age: 36))
            try tx.upsert(Person(id: 9, name: "New", age: 1))
            #expect(try tx.delete(inserted[3]))
            #expect(try !tx.delete(Person.self, id: 77))
        }
        let rows = try folder.rawDatabase().read { db in
            try Row.fetchAll(db, sql: "SELECT id, name, age, nickname FROM person ORDER BY id").map { [$0[0] as Int, $0[2] as Int] }
        }
        #expect(rows == [[1, 21], [2, 36], [3, 28], [9, 1]])
        #expect(try store.object(Person.self, id: 2)?.nickname == nil)
        #expect(try store.object(Person.self, id: 4) == nil)
    }

    @Test func aThrowingWriteRollsEverythingBack() throws {
        let folder = TemporaryFolder("objects-rollback")
        let store = try folder.objectStore(ObjectSchema(Person.self))
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try store.write { tx in
                try tx.insert(contentsOf: Self.people())
                throw Stop()
            }
        }
        #expect(try store.count(Person.query()) == 0)
    }

    @Test func uniqueViolationIsTypedAndWritesNothing() throws {
        let folder = TemporaryFolder("objects-unique")
        let store = try folder.objectStore(ObjectSchema(Person.self))
        try store.write { tx in try tx.insert(Person(id: nil, name: "Ada", age: 36)) }
        var caught: StashError?
        do {
            try store.write { tx in
                try tx.insert(Person(id: nil, name: "Bob", age: 1))
                try tx.insert(Person(id: nil, name: "Ada", age: 2))
            }
        } catch let error as StashError {
            caught = error
        }
        #expect(caught?.code == .uniqueViolation)
        #expect(caught?.key == "person.name")
        #expect(try store.count(Person.query()) == 1)
    }

    @Test func updateOfAMissingObjectIsNotFound() throws {
        let folder = TemporaryFolder("objects-missing")
        let store = try folder.objectStore(ObjectSchema(Person.self))
        #expect(errorCode { try store.write { tx in try tx.update(Person(id: 5, name: "Nobody", age: 0)) } } == .notFound)
    }

    @Test func batchUpdateAndDeleteMatchAQueryWithoutLoading() throws {
        let folder = TemporaryFolder("objects-batch")
        let store = try folder.objectStore(ObjectSchema(Person.self))
        try store.write { tx in try tx.insert(contentsOf: Self.people()) }
        let (changed, removed) = try store.write { tx in
            (
                try tx.updateAll(Person.query().filter(\.age < 30), .set(\.nickname, "young"), .set(\.age, 29)),
                try tx.deleteAll(Person.query().filter(\.age > 80))
            )
        }
        #expect(changed == 2 && removed == 1)
        let rows = try folder.rawDatabase().read { db in try String.fetchAll(db, sql: "SELECT name FROM person WHERE nickname = 'young' AND age = 29 ORDER BY name") }
        #expect(rows == ["Itcast-1", "Itcast-2"])
        #expect(try store.count(Person.query()) == 3)
    }

    @Test func asyncReadsAndWrites() async throws {
        let folder = TemporaryFolder("objects-async")
        let store = try folder.objectStore(ObjectSchema(Person.self))
        let ada = try await store.write { tx in try tx.insert(Person(id: nil, name: "Ada", age: 36)) }
        let fetched = try await store.fetch(Person.query())
        #expect(fetched == [ada])
        #expect(try await store.read { try $0.count(Person.query()) } == 1)
    }

    @Test func aFileThatIsNotSQLiteIsRefusedUntouched() throws {
        let folder = TemporaryFolder("objects-notsqlite")
        let file = folder.file("objects.sqlite")
        let bytes = Data("These are somebody's notes, not a database.\n".utf8)
        try bytes.write(to: file)
        #expect(errorCode { try folder.objectStore(ObjectSchema(Person.self)) } == .corruptFile)
        #expect(try Data(contentsOf: file) == bytes)
    }

    @Test func opensInTheSandboxApplicationSupportFolder() throws {
        let folder = TemporaryFolder("objects-sandbox")
        let sandbox = folder.sandbox()
        let store = try ObjectStore("people", sandbox: sandbox, schema: ObjectSchema(Person.self))
        #expect(store.url.deletingLastPathComponent() == (try sandbox.url(for: .applicationSupport)))
        #expect(store.url.lastPathComponent == "people.sqlite")
    }

    @Test func aClosedStoreThrows() throws {
        let folder = TemporaryFolder("objects-closed")
        let store = try folder.objectStore(ObjectSchema(Person.self))
        try store.close()
        #expect(errorCode { try store.fetch(Person.query()) } == .closed)
        #expect(errorCode { try store.write { tx in try tx.insert(Person(name: "late", age: 1)) } } == .closed)
    }
}
