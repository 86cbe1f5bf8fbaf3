import Foundation
import StashCore
import StashObjects
import StashTestSupport
import Testing

/// Fetches and counts through a context see its pending inserts, updates and deletes, and
/// give one version per id: the context's.
struct ContextPendingFetchTests {
    let folder = TemporaryFolder("context-fetch")
    let store: ObjectStore

    init() throws {
        store = try folder.storeWithAdaAndGrace()
        try store.write { tx in try tx.insert(Card(id: nil, number: "4400", ownerID: 1)) }
    }

    @Test func anObjectFetchedTwiceIsTheContextsVersion() throws {
        let context = ObjectContext(store: store)
        var ada = try #require(try context.fetch(Person.query().filter(\.name == "Ada")).first)
        ada.age = 50
        context.update(ada)
        #expect(try context.fetch(Person.query().sorted(\.name)).first == ada)
        #expect(try context.object(Person.self, id: ada.id) == ada)
        #expect(try context.fetch(Person.query().filter(\.age == 50)) == [ada])
        #expect(try context.fetch(Person.query().filter(\.age == 36)).isEmpty)
        #expect(try store.object(Person.self, id: ada.id)?.age == 36)   // nothing written
    }

    @Test func pendingInsertsAppearWhenTheyMatchSortedAndWindowed() throws {
        let context = ObjectContext(store: store)
        context.insert(Person(id: nil, name: "Alan", age: 41))
        context.insert(Person(id: nil, name: "Kid", age: 5))
        #expect(try context.fetch(Person.query().sorted(\.age)).map(\.name) == ["Kid", "Ada", "Alan", "Grace"])
        #expect(try context.fetch(Person.query().filter(\.age > 40).sorted(\.age)).map(\.name) == ["Alan", "Grace"])
        #expect(try context.fetch(Person.query().sorted(\.age, .descending).limit(2).offset(1)).map(\.name) == ["Alan", "Ada"])
        #expect(try context.fetch(Person.query().filter(.like(\.name, "A*")).sorted(\.name)).map(\.name) == ["Ada", "Alan"])
        #expect(try context.count(Person.query()) == 4)
        #expect(try context.count(Person.query().filter(\.age < 10)) == 1)
        #expect(try context.count(Person.query().limit(3)) == 3)
        #expect(try store.count(Person.query()) == 2)
    }

    @Test func pendingUpdatesEnterAndLeaveTheFilter() throws {
        let context = ObjectContext(store: store)
        var people = try context.fetch(Person.query().sorted(\.name))
        people[0].age = 90    // Ada enters "over 80"
        people[1].age = 20    // Grace leaves it
        context.update(people[0])
        context.update(people[1])
        #expect(try context.fetch(Person.query().filter(\.age > 80)).map(\.name) == ["Ada"])
        #expect(try context.count(Person.query().filter(\.age > 80)) == 1)
        #expect(try context.fetch(Person.query().sorted(\.age)).map(\.name) == ["Grace", "Ada"])
    }

    @Test func pendingDeletesDisappearWithTheirCascade() throws {
        let context = ObjectContext(store: store)
        let ada = try #require(try context.fetch(Person.query().filter(\.name == "Ada")).first)
        context.delete(ada)
        #expect(try context.fetch(Person.query()).map(\.name) == ["Grace"])
        #expect(try context.object(Person.self, id: ada.id) == nil)
        #expect(try context.count(Person.query()) == 1)
        #expect(try context.count(Card.query()) == 0)    // Ada's card cascades
        #expect(try store.count(Card.query()) == 1)
    }

    /// A filter across a relationship runs in SQLite over the merged data, pending objects
    /// on both sides included.
    @Test func relationshipFiltersSeePendingObjects() throws {
        let context = ObjectContext(store: store)
        let grace = try #require(try context.fetch(Person.query().filter(\.name == "Grace")).first)
        context.insert(Card(id: nil, number: "5500", ownerID: grace.id!))
        let alan = context.insert(Person(id: nil, name: "Alan", age: 41))
        context.insert(Card(id: nil, number: "5501", ownerID: alan.id!))
        let withCards55 = Person.query().filter(.related(Card.self, where: .hasPrefix(\.number, "55"))).sorted(\.name)
        #expect(try context.fetch(withCards55).map(\.name) == ["Alan", "Grace"])
        #expect(try store.fetch(withCards55).isEmpty)
    }

    /// A pending change the store would refuse (a duplicate unique name) is left out of the
    /// view; the fetch still works, and the save reports it.
    @Test func aChangeTheStoreRefusesIsLeftOutOfReads() throws {
        let context = ObjectContext(store: store)
        context.insert(Person(id: nil, name: "Ada", age: 1))
        context.insert(Person(id: nil, name: "Alan", age: 41))
        #expect(try context.fetch(Person.query().sorted(\.name)).map(\.name) == ["Ada", "Alan", "Grace"])
        #expect(errorCode { try context.save() } == .uniqueViolation)
    }

    /// The promise of `Sendable`: changes from many tasks at once are all kept and saved.
    @Test func changesFromManyTasksAreAllSaved() async throws {
        let context = ObjectContext(store: store)
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<50 {
                group.addTask { context.insert(Person(id: nil, name: "P\(index)", age: index)) }
            }
        }
        #expect(try await context.fetch(Person.query()).count == 52)
        try await context.save()
        #expect(try await store.count(Person.query()) == 52)
        #expect(Set(try await store.fetch(Person.query()).compactMap(\.id)).count == 52)
    }
}
