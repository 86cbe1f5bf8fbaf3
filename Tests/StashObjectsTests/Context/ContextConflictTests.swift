import Foundation
import StashCore
import StashObjects
import StashTestSupport
import Testing

/// Repeated edits are one change, checked against the version the context last saw; a save
/// is all or nothing.
struct ContextConflictTests {
    let folder = TemporaryFolder("context-conflicts")
    let store: ObjectStore

    init() throws {
        store = try folder.storeWithAdaAndGrace()
    }

    /// A second edit before the save is kept (it neither throws `conflict` under `.fail` nor
    /// is dropped under `.storeWins`), and so are edits after a save.
    @Test(arguments: [ObjectContext.MergePolicy.fail, .storeWins, .contextWins])
    func repeatedAndLaterEditsAreKept(_ policy: ObjectContext.MergePolicy) throws {
        let context = ObjectContext(store: store, mergePolicy: policy)
        var ada = try #require(try context.fetch(Person.query().filter(\.name == "Ada")).first)
        ada.age = 37
        context.update(ada)
        ada.nickname = "Countess"
        context.update(ada)
        try context.save()
        #expect(try store.object(Person.self, id: 1) == ada)
        ada.age = 38
        context.update(ada)
        try context.save()
        ada.age = 39
        context.update(ada)
        ada.age = 40
        context.update(ada)
        try context.save()
        #expect(try store.object(Person.self, id: 1)?.age == 40)
        #expect(!context.hasChanges)
    }

    /// Another process (here a second store on the same file) writes between the fetch and
    /// the save.
    @Test(arguments: [ObjectContext.MergePolicy.fail, .storeWins, .contextWins])
    func anotherWriterBetweenFetchAndSave(_ policy: ObjectContext.MergePolicy) throws {
        let other = try folder.objectStore(graphSchema)
        let context = ObjectContext(store: store, mergePolicy: policy)
        var ada = try #require(try context.object(Person.self, id: 1))
        try other.write { tx in try tx.update(Person(id: 1, name: "Ada", age: 50)) }
        ada.nickname = "Countess"
        context.update(ada)
        context.insert(Person(id: nil, name: "Alan", age: 41))
        switch policy {
        case .fail:
            #expect(errorCode { try context.save() } == .conflict)
            #expect(try other.count(Person.query()) == 2)
            #expect(try other.object(Person.self, id: 1)?.nickname == nil)
            #expect(context.hasChanges)
            // After a refetch, the fetched version is the one the context saw.
            context.rollback()
            var fresh = try #require(try context.object(Person.self, id: 1))
            fresh.nickname = "Countess"
            context.update(fresh)
            try context.save()
            #expect(try other.object(Person.self, id: 1) == Person(id: 1, name: "Ada", age: 50, nickname: "Countess"))
        case .storeWins:
            try context.save()
            #expect(try other.object(Person.self, id: 1) == Person(id: 1, name: "Ada", age: 50))
            #expect(try other.count(Person.query()) == 3)
            #expect(!context.hasChanges)
            #expect(try context.object(Person.self, id: 1)?.age == 50)
        case .contextWins:
            try context.save()
            #expect(try other.object(Person.self, id: 1) == ada)
        }
        try other.close()
    }

    /// A change whose base is the saved version: a save makes what it wrote the version seen.
    @Test func anotherWriterAfterTheContextsSaveIsStillDetected() throws {
        let other = try folder.objectStore(graphSchema)
        let context = ObjectContext(store: store)
        var ada = try #require(try context.object(Person.self, id: 1))
        ada.age = 37
        context.update(ada)
        try context.save()
        try other.write { tx in try tx.update(Person(id: 1, name: "Ada", age: 60)) }
        ada.age = 38
        context.update(ada)
        #expect(errorCode { try context.save() } == .conflict)
        #expect(try store.object(Person.self, id: 1)?.age == 60)
        try other.close()
    }

    /// Hostile: a save that fails half-way writes nothing and keeps every pending change.
    @Test func aSaveFailingHalfWayWritesNothingAndKeepsTheChanges() throws {
        let context = ObjectContext(store: store)
        var ada = try #require(try context.object(Person.self, id: 1))
        ada.age = 99
        context.update(ada)
        let alan = context.insert(Person(id: nil, name: "Alan", age: 41))
        context.insert(Card(id: nil, number: "4400", ownerID: alan.id!))
        context.insert(Person(id: nil, name: "Grace", age: 1))    // duplicate unique name
        #expect(errorCode { try context.save() } == .uniqueViolation)
        #expect(try store.count(Person.query()) == 2)
        #expect(try store.count(Card.query()) == 0)
        #expect(try store.object(Person.self, id: 1)?.age == 36)
        #expect(try context.count(Card.query()) == 1)
        context.undo()    // the duplicate
        try context.save()
        #expect(try store.count(Person.query()) == 3)
        #expect(try store.fetch(Card.query()).map(\.ownerID) == [3])
        #expect(try store.object(Person.self, id: 1)?.age == 99)
    }
}
