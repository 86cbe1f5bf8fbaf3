import Foundation
import StashCore
import StashObjects
import StashTestSupport
import Testing

/// Undo and redo of a context's unsaved changes, per change and per named group.
struct ContextUndoTests {
    let folder = TemporaryFolder("context-undo")
    let store: ObjectStore

    init() throws {
        store = try folder.storeWithAdaAndGrace()
    }

    @Test func undoAndRedoOneEditAtATime() throws {
        let context = ObjectContext(store: store)
        var ada = try #require(try context.object(Person.self, id: 1))
        ada.age = 37
        context.update(ada)
        ada.age = 38
        context.update(ada)
        #expect(context.undo())
        #expect(try context.object(Person.self, id: 1)?.age == 37)
        #expect(context.undo())
        #expect(try context.object(Person.self, id: 1)?.age == 36)
        #expect(!context.hasChanges)
        #expect(context.canRedo)
        #expect(context.redo())
        #expect(try context.object(Person.self, id: 1)?.age == 37)
        try context.save()
        #expect(try store.object(Person.self, id: 1)?.age == 37)
        #expect(!context.canUndo)
        #expect(!context.canRedo)
    }

    @Test func undoBringsBackADeletedObjectAndRemovesAnInsertedOne() throws {
        let context = ObjectContext(store: store)
        let grace = try #require(try context.object(Person.self, id: 2))
        context.delete(grace)
        let alan = context.insert(Person(id: nil, name: "Alan", age: 41))
        #expect(try context.fetch(Person.query().sorted(\.name)).map(\.name) == ["Ada", "Alan"])
        context.undo()
        #expect(try context.object(Person.self, id: alan.id) == nil)
        context.undo()
        #expect(try context.fetch(Person.query().sorted(\.name)).map(\.name) == ["Ada", "Grace"])
        #expect(!context.hasChanges)
    }

    @Test func aNamedGroupIsOneStep() throws {
        let context = ObjectContext(store: store)
        context.undoGroup("Add Alan and his card") {
            let alan = context.insert(Person(id: nil, name: "Alan", age: 41))
            context.undoGroup("inner") {
                context.insert(Card(id: nil, number: "4400", ownerID: alan.id!))
            }
        }
        #expect(context.undoActionName == "Add Alan and his card")
        #expect(try context.count(Card.query()) == 1)
        context.undo()
        #expect(try context.count(Person.query()) == 2)
        #expect(try context.count(Card.query()) == 0)
        #expect(context.redoActionName == "Add Alan and his card")
        context.redo()
        try context.save()
        #expect(try store.count(Card.query()) == 1)
        #expect(try store.fetch(Card.query()).first?.ownerID == 3)
    }

    /// Hostile: undo and redo past either end change nothing and say so.
    @Test func undoPastTheStartDoesNothing() throws {
        let context = ObjectContext(store: store)
        #expect(!context.undo())
        #expect(!context.redo())
        context.insert(Person(id: nil, name: "Alan", age: 41))
        #expect(context.undo())
        #expect(!context.undo())
        #expect(!context.canUndo)
        #expect(!context.hasChanges)
        #expect(context.redo())
        #expect(!context.redo())
        #expect(try context.count(Person.query()) == 3)
    }

    @Test func aNewChangeEmptiesRedoAndRollbackEmptiesBoth() throws {
        let context = ObjectContext(store: store)
        context.insert(Person(id: nil, name: "Alan", age: 41))
        context.undo()
        context.insert(Person(id: nil, name: "Kid", age: 5))
        #expect(!context.canRedo)
        #expect(try context.fetch(Person.query().sorted(\.name)).map(\.name) == ["Ada", "Grace", "Kid"])
        context.rollback()
        #expect(!context.canUndo)
        #expect(!context.hasChanges)
    }
}
