import Foundation
import StashCore
import StashObjects
import StashTestSupport
import Testing

/// Tokens per commit, and the ids each model gained, changed and lost since a token.
struct ChangeHistoryTests {
    @Test func changesSinceATokenListIdsPerModelIncludingCascades() throws {
        let folder = TemporaryFolder("objects-history")
        let store = try folder.objectStore(ObjectSchema(Person.self, Card.self, Note.self, Loan.self, Club.self, history: true))
        let start = try store.changeToken()
        let (ada, grace) = try store.write { tx in
            (try tx.insert(Person(id: nil, name: "Ada", age: 36)), try tx.insert(Person(id: nil, name: "Grace", age: 85)))
        }
        try store.write { tx in try tx.insert(Card(id: nil, number: "44", ownerID: grace.id!)) }
        let middle = try store.changeToken()
        #expect(middle > start)
        try store.write { tx in
            try tx.update(Person(id: ada.id, name: "Ada", age: 37))
            try tx.delete(grace)       // cascades to the card
            try tx.insert(Person(id: nil, name: "Temp", age: 1))
            try tx.deleteAll(Person.query().filter(\.name == "Temp"))
        }
        let all = try store.changes(since: start)
        #expect(all.inserted(Person.self) == [1])   // Grace inserted then deleted: nowhere
        #expect(all.deleted(Person.self).isEmpty)
        let recent = try store.changes(since: middle)
        #expect(recent.updated(Person.self) == [1])
        #expect(recent.deleted(Person.self) == [2])
        #expect(recent.deleted(Card.self) == [1])
        #expect(recent.inserted(Person.self).isEmpty)
        #expect(try store.changes(since: recent.token).isEmpty)
        // Off unless asked for.
        let plain = try folder.objectStore(ObjectSchema(Person.self), name: "plain.sqlite")
        #expect(errorCode { try plain.changeToken() } == .unsupportedValue)
    }
}
