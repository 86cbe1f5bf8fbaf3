import Foundation
import StashCore
import StashObjects
import StashTestSupport
import Testing

/// A second model on the `person` table: the same rows, fewer columns.
struct PersonSummary: Model, Equatable {
    var id: Int64?
    var name: String
    var age: Int
    static let entity = ObjectEntity<PersonSummary>(table: "person")
}

/// The ids a context hands out never name stored objects, and the real ids it gives are
/// unique per table.
struct ContextIDSpaceTests {
    let folder = TemporaryFolder("context-id-space")

    /// A stored object with a negative id of its own (ids are the application's to choose
    /// too): a new object in the context is another object, fetched beside it, and an edit of
    /// the stored one changes the stored one.
    @Test func aStoredNegativeIDIsNotANewObjectsTemporaryID() throws {
        let store = try folder.objectStore(ObjectSchema(Person.self))
        try store.write { tx in try tx.insert(Person(id: -1, name: "Stored", age: 50)) }
        let context = ObjectContext(store: store)
        let new = context.insert(Person(id: nil, name: "New", age: 1))
        #expect(new.id != -1)
        var stored = try #require(try context.object(Person.self, id: -1))
        #expect(stored.name == "Stored")
        #expect(try context.fetch(Person.query().sorted(\.name)).map(\.name) == ["New", "Stored"])
        stored.age = 51
        context.update(stored)
        try context.save()
        let rows = try store.fetch(Person.query().sorted(\.name))
        #expect(rows.map(\.name) == ["New", "Stored"])
        #expect(rows[1].id == -1 && rows[1].age == 51)
        #expect((rows[0].id ?? 0) > 0)
    }

    /// Hostile: a stored object sits exactly at the first temporary id (`Int64.min`). The
    /// context cannot tell it from its new object: its reads show the stored one as stored,
    /// and the save throws `conflict`, writing nothing.
    @Test func aStoredObjectAtATemporaryIDIsAConflict() throws {
        let store = try folder.objectStore(ObjectSchema(Person.self))
        try store.write { tx in try tx.insert(Person(id: Int64.min, name: "Bottom", age: 50)) }
        let context = ObjectContext(store: store)
        let new = context.insert(Person(id: nil, name: "New", age: 1))
        #expect(new.id == Int64.min)
        #expect(try context.fetch(Person.query()).contains { $0.name == "Bottom" })
        let error = #expect(throws: StashError.self) { try context.save() }
        #expect(error?.code == .conflict)
        #expect(try store.fetch(Person.query()).map(\.name) == ["Bottom"])
    }

    /// Two models on one table, new objects of both in one save: each gets its own id.
    @Test func twoModelsOnOneTableGetDistinctIDs() throws {
        let store = try folder.objectStore(ObjectSchema(Person.self, PersonSummary.self))
        try store.write { tx in try tx.insert(Person(id: nil, name: "Ada", age: 36)) }
        let context = ObjectContext(store: store)
        context.insert(Person(id: nil, name: "Grace", age: 85))
        context.insert(PersonSummary(id: nil, name: "Alan", age: 41))
        context.insert(Person(id: nil, name: "Edsger", age: 72))
        try context.save()
        let ids = try store.fetch(Person.query()).compactMap(\.id)
        #expect(ids.count == 4)
        #expect(Set(ids).count == 4)
        #expect(try store.fetch(PersonSummary.query().filter(\.name == "Alan")).count == 1)
    }
}
