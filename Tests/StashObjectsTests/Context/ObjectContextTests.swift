import Foundation
import StashCore
import StashObjects
import StashTestSupport
import Testing

/// Save in one transaction, rollback, conflicts with each merge policy. Serialized: two
/// tests set `Echo.whileEncoding`, one global hook.
@Suite(.serialized)
struct ObjectContextTests {
    let folder = TemporaryFolder("objects-context")
    let store: ObjectStore

    init() throws {
        store = try folder.objectStore(ObjectSchema(Person.self, Echo.self))
        try store.write { tx in
            try tx.insert(Person(id: nil, name: "Ada", age: 36))
            try tx.insert(Person(id: nil, name: "Grace", age: 85))
        }
    }

    @Test func saveWritesEverythingAndRollbackForgets() throws {
        let context = ObjectContext(store: store)
        var people = try context.fetch(Person.query().sorted(\.id))
        #expect(!context.hasChanges)
        people[0].age = 37
        context.update(people[0])
        context.delete(people[1])
        context.insert(Person(id: nil, name: "Alan", age: 41))
        #expect(context.hasChanges)
        #expect(try store.count(Person.query()) == 2)    // nothing written before save
        try context.save()
        #expect(!context.hasChanges)
        #expect(try store.fetch(Person.query().sorted(\.name)).map(\.name) == ["Ada", "Alan"])
        #expect(try store.object(Person.self, id: 1)?.age == 37)

        people[0].age = 99
        context.update(people[0])
        context.rollback()
        #expect(!context.hasChanges)
        try context.save()
        #expect(try store.object(Person.self, id: 1)?.age == 37)
        // Saving again after an own save is no conflict: the snapshot follows the save.
        people[0].age = 38
        context.update(people[0])
        try context.save()
        #expect(try store.object(Person.self, id: 1)?.age == 38)
    }

    @Test func aStaleObjectIsAConflictAndNothingIsWritten() throws {
        let context = ObjectContext(store: store)
        var ada = try context.fetch(Person.query().filter(\.name == "Ada"))[0]
        try store.write { tx in try tx.update(Person(id: ada.id, name: "Ada", age: 50)) }   // another screen
        ada.nickname = "Countess"
        context.update(ada)
        context.insert(Person(id: nil, name: "Alan", age: 41))
        var caught: StashError?
        do { try context.save() } catch let error as StashError { caught = error }
        #expect(caught?.code == .conflict)
        #expect(caught?.key == "Person id 1")
        #expect(try store.count(Person.query()) == 2)
        #expect(try store.object(Person.self, id: 1)?.nickname == nil)
        #expect(context.hasChanges)
    }

    @Test func mergePoliciesChooseASide() throws {
        let contextWins = ObjectContext(store: store, mergePolicy: .contextWins)
        let storeWins = ObjectContext(store: store, mergePolicy: .storeWins)
        var first = try contextWins.fetch(Person.query().filter(\.name == "Ada"))[0]
        var second = try storeWins.fetch(Person.query().filter(\.name == "Grace"))[0]
        try store.write { tx in
            try tx.update(Person(id: first.id, name: "Ada", age: 1))
            try tx.update(Person(id: second.id, name: "Grace", age: 2))
        }
        first.age = 100
        second.age = 200
        contextWins.update(first)
        storeWins.update(second)
        try contextWins.save()
        try storeWins.save()
        #expect(try store.object(Person.self, id: first.id!)?.age == 100)
        #expect(try store.object(Person.self, id: second.id!)?.age == 2)
    }

    @Test func aChangeMadeWhileASaveRunsStaysForTheNextSave() throws {
        let context = ObjectContext(store: store)
        // While the save encodes the Echo, another change reaches the context.
        Echo.whileEncoding.withLock { $0 = { context.insert(Person(id: nil, name: "Late", age: 1)) } }
        context.insert(Echo(id: nil, text: "first"))
        try context.save()
        #expect(try store.count(Echo.query()) == 1)
        #expect(try store.count(Person.query().filter(\.name == "Late")) == 0)
        #expect(context.hasChanges)
        try context.save()
        #expect(!context.hasChanges)
        #expect(try store.count(Person.query().filter(\.name == "Late")) == 1)
    }

    /// A save started while another save of the same context runs throws `locked` and
    /// writes nothing twice; the running save finishes and the context is clean after it.
    @Test func aSecondSaveWhileOneRunsIsLocked() throws {
        let context = ObjectContext(store: store)
        let caught = LockedValue<StashError?>(nil)
        Echo.whileEncoding.withLock {
            $0 = {
                context.insert(Person(id: nil, name: "Late", age: 1))
                do { try context.save() } catch let error as StashError { caught.withLock { $0 = error } } catch {}
            }
        }
        context.insert(Echo(id: nil, text: "first"))
        try context.save()
        #expect(caught.withLock { $0?.code } == .locked)
        #expect(try store.count(Echo.query()) == 1)
        #expect(try store.count(Person.query().filter(\.name == "Late")) == 0)
        try context.save()
        #expect(try store.count(Echo.query()) == 1)
        #expect(try store.count(Person.query().filter(\.name == "Late")) == 1)
        #expect(!context.hasChanges)
    }

    /// An undo asked for while a save writes the step it would undo is refused (`false`),
    /// not taken and then lost when the save finishes: the insert is saved, the context
    /// is clean, and the store and the context agree.
    @Test func anUndoWhileASaveRunsIsRefused() throws {
        let context = ObjectContext(store: store)
        let answers = LockedValue<[Bool]>([])
        Echo.whileEncoding.withLock { $0 = { answers.withLock { $0 += [context.canUndo, context.undo(), context.redo()] } } }
        context.insert(Echo(id: nil, text: "first"))
        try context.save()
        #expect(answers.withLock { $0 } == [true, false, false])
        #expect(try store.count(Echo.query()) == 1)
        #expect(!context.hasChanges)
        #expect(try context.count(Echo.query()) == 1)
        #expect(!context.undo())
    }

    @Test func asyncFetchAndSave() async throws {
        let context = ObjectContext(store: store)
        var ada = try await context.fetch(Person.query().filter(\.name == "Ada"))[0]
        ada.age = 40
        context.update(ada)
        context.insert(Person(id: nil, name: "Alan", age: 41))
        try await context.save()
        #expect(!context.hasChanges)
        #expect(try await store.object(Person.self, id: ada.id)?.age == 40)
        #expect(try await store.count(Person.query()) == 3)
    }
}

/// A model whose `encode(to:)` runs a hook once: a change arriving in the middle of a save.
struct Echo: Model {
    var id: Int64?
    var text: String
    static let whileEncoding = LockedValue<(@Sendable () -> Void)?>(nil)

    enum CodingKeys: String, CodingKey { case id, text }

    func encode(to encoder: any Encoder) throws {
        let hook = Self.whileEncoding.withLock { hook in
            defer { hook = nil }
            return hook
        }
        hook?()
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(id, forKey: .id)
        try container.encode(text, forKey: .text)
    }
}
