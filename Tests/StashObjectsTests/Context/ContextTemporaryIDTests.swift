import Foundation
import StashCore
import StashObjects
import StashTestSupport
import Testing

/// A tree: a self-referencing to-one, for temporary ids pointing at the same model.
struct Folder: Model, Equatable {
    var id: Int64?
    var name: String
    var parentID: Int64?
    static let entity = ObjectEntity<Folder>().belongsTo(\.parentID, Folder.self, onDelete: .cascade)
}

/// `insert` hands back temporary ids that other pending objects may reference; the save
/// makes them real and rewrites every reference, in one transaction.
struct ContextTemporaryIDTests {
    let folder = TemporaryFolder("context-ids")
    let store: ObjectStore

    init() throws {
        store = try folder.objectStore(ObjectSchema(Person.self, Card.self, Note.self, Folder.self, Club.self))
        try store.write { tx in try tx.insert(Person(id: nil, name: "Ada", age: 36)) }
    }

    @Test func aPersonAndHerCardInOneSave() throws {
        let context = ObjectContext(store: store)
        let grace = context.insert(Person(id: nil, name: "Grace", age: 85))
        let tempID = try #require(grace.id)
        #expect(tempID < 0)
        let card = context.insert(Card(id: nil, number: "4400", ownerID: tempID))
        #expect(try context.fetch(Card.query().filter(\.ownerID == tempID)) == [card])
        try context.save()

        let saved = try #require(try store.fetch(Person.query().filter(\.name == "Grace")).first)
        let realID = try #require(saved.id)
        #expect(realID == 2)
        #expect(try store.fetch(Card.query()).map(\.ownerID) == [realID])
        // The temporary id keeps naming the object after the save.
        #expect(try context.object(Person.self, id: tempID) == saved)
        var edited = grace
        edited.age = 86
        context.update(edited)
        context.insert(Note(id: nil, text: "later", authorID: tempID))
        try context.save()
        #expect(try store.object(Person.self, id: realID)?.age == 86)
        #expect(try store.count(Person.query()) == 2)
        #expect(try store.fetch(Note.query()).map(\.authorID) == [realID])
    }

    @Test func aSelfReferenceAndAnExplicitIDInTheSameSave() throws {
        let context = ObjectContext(store: store)
        let root = context.insert(Folder(id: nil, name: "root", parentID: nil))
        let child = context.insert(Folder(id: nil, name: "child", parentID: root.id))
        context.insert(Folder(id: nil, name: "grandchild", parentID: child.id))
        context.insert(Folder(id: 10, name: "explicit", parentID: nil))
        try context.save()
        let folders = try store.fetch(Folder.query().sorted(\.name))
        let byName = Dictionary(uniqueKeysWithValues: folders.map { ($0.name, $0) })
        #expect(byName["child"]?.parentID == byName["root"]?.id)
        #expect(byName["grandchild"]?.parentID == byName["child"]?.id)
        #expect(byName["explicit"]?.id == 10)
        #expect(folders.allSatisfy { ($0.id ?? 0) > 0 })
        #expect(Set(folders.compactMap(\.id)).count == 4)
    }

    /// An object inserted in the context before one it points at, then edited to point at
    /// it: the references are checked at commit, so the order does not matter.
    @Test func objectsMayPointAtObjectsInsertedAfterThem() throws {
        let context = ObjectContext(store: store)
        var first = context.insert(Folder(id: nil, name: "first", parentID: nil))
        let second = context.insert(Folder(id: nil, name: "second", parentID: nil))
        first.parentID = second.id
        context.update(first)
        try context.save()
        let folders = try store.fetch(Folder.query().sorted(\.name))
        #expect(folders[0].parentID == folders[1].id)
    }

    /// Hostile: a temporary id still referenced after its object was deleted in the context.
    @Test func aReferenceToADeletedTemporaryIDFailsAndWritesNothing() throws {
        let context = ObjectContext(store: store)
        let grace = context.insert(Person(id: nil, name: "Grace", age: 85))
        context.insert(Card(id: nil, number: "4400", ownerID: grace.id!))
        context.insert(Person(id: nil, name: "Alan", age: 41))
        context.delete(grace)
        #expect(errorCode { try context.save() } == .missingRelatedObject)
        #expect(try store.count(Person.query()) == 1)
        #expect(try store.count(Card.query()) == 0)
        #expect(context.hasChanges)
    }

    @Test func chosenIDsAreRealAlready() throws {
        let context = ObjectContext(store: store)
        let club = context.insert(Club(id: "chess", title: "Chess"))
        #expect(club.id == "chess")
        try context.save()
        #expect(try store.object(Club.self, id: "chess") == club)
    }
}
