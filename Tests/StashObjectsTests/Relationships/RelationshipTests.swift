import Foundation
import GRDB
import StashCore
@testable import StashObjects
import StashTestSupport
import Testing

/// The three kinds of relationship, every delete rule, lazy loading, prefetch in a constant
/// number of statements, filters across relationships.
struct RelationshipTests {
    let folder = TemporaryFolder("objects-relations")
    let store: ObjectStore

    init() throws {
        store = try folder.objectStore(graphSchema)
    }

    @discardableResult
    func seed(people: Int, cardsEach: Int) throws -> [Person] {
        try store.write { tx in
            try (1...people).map { index in
                let person = try tx.insert(Person(id: nil, name: "Itcast-\(index)", age: 20 + index % 50))
                for card in 0..<cardsEach {
                    try tx.insert(Card(id: nil, number: "\(index % 2 == 0 ? "44" : "55")\(index)-\(card)", ownerID: person.id!))
                }
                return person
            }
        }
    }

    @Test func foreignKeysAreRealSQLiteForeignKeys() throws {
        let keys = try folder.rawDatabase().read { db in try Row.fetchAll(db, sql: "PRAGMA foreign_key_list(card)") }
        #expect(keys.count == 1)
        #expect(keys.first?["table"] == "person")
        #expect(keys.first?["on_delete"] == "CASCADE")
        #expect(errorCode { try store.write { tx in try tx.insert(Card(id: nil, number: "1", ownerID: 999)) } } == .missingRelatedObject)
    }

    @Test func toOneAndToManyLoadLazily() throws {
        let people = try seed(people: 3, cardsEach: 2)
        let (cards, owner, none) = try store.read { reader in
            let cards = try reader.related(Card.self, of: people[1])
            return (cards, try reader.related(Person.self, of: cards[0]).first, try reader.related(Card.self, of: Person(id: 99, name: "x", age: 0)))
        }
        #expect(cards.map(\.number) == ["442-0", "442-1"])
        #expect(owner == people[1])
        #expect(none.isEmpty)
    }

    @Test func prefetchCostsAConstantNumberOfStatements() throws {
        try seed(people: 1000, cardsEach: 2)
        let counted = LockedCount()
        let entries = try store.read { reader in
            reader.db.trace { event in
                if case .statement = event { counted.increment() }
            }
            defer { reader.db.trace(options: [], nil) }
            return try reader.fetch(Person.query().sorted(\.id), including: Card.self)
        }
        #expect(entries.count == 1000)
        #expect(entries.allSatisfy { entry in entry.related.count == 2 && entry.related.allSatisfy { card in card.ownerID == entry.object.id } })
        #expect(counted.value == 2)
    }

    @Test func filtersAcrossRelationships() throws {
        try seed(people: 20, cardsEach: 1)
        let people = try store.fetch(Person.query().filter(.related(Card.self, where: .hasPrefix(\.number, "44"))).sorted(\.id))
        let expected = try folder.rawDatabase().read { db in
            try Int64.fetchAll(db, sql: "SELECT DISTINCT ownerID FROM card WHERE number GLOB '44*' ORDER BY ownerID")
        }
        #expect(people.map { $0.id! } == expected)
        let cards = try store.fetch(Card.query().filter(.related(Person.self, where: \.age > 60)))
        let expectedCards = try folder.rawDatabase().read { db in
            try Int64.fetchAll(db, sql: "SELECT card.id FROM card JOIN person ON person.id = card.ownerID WHERE person.age > 60")
        }
        #expect(cards.map { $0.id! }.sorted() == expectedCards.sorted())
    }

    @Test func deleteRulesCascadeNullifyDeny() throws {
        let people = try seed(people: 2, cardsEach: 3)
        try store.write { tx in
            try tx.insert(Note(id: nil, text: "hello", authorID: people[0].id))
            try tx.insert(Loan(id: nil, amount: 10, borrowerID: people[1].id!))
        }
        try store.write { tx in try tx.delete(people[0]) }
        #expect(try store.count(Card.query().filter(\.ownerID == people[0].id!)) == 0)
        #expect(try store.fetch(Note.query()).map(\.authorID) == [nil])
        // Deny: typed error, nothing deleted, the cards still there.
        var caught: StashError?
        do { try store.write { tx in try tx.delete(people[1]) } } catch let error as StashError { caught = error }
        #expect(caught?.code == .deleteDenied)
        #expect(caught?.key == "Person")
        #expect(try store.object(Person.self, id: people[1].id!) != nil)
        #expect(try store.count(Card.query()) == 3)
    }

    @Test func manyToManyLinksBothWays() throws {
        let people = try seed(people: 3, cardsEach: 0)
        let chess = Club(id: "chess", title: "Chess"), go = Club(id: "go", title: "Go")
        try store.write { tx in
            try tx.insert(chess)
            try tx.insert(go)
            try tx.link(chess, people[0])
            try tx.link(people[1], chess)
            try tx.link(go, people[1])
            try tx.link(go, people[1])
        }
        #expect(try store.read { try $0.related(Person.self, of: chess) }.map(\.name) == ["Itcast-1", "Itcast-2"])
        #expect(try store.read { try $0.related(Club.self, of: people[1]) }.map(\.id) == ["chess", "go"])
        let members = try store.fetch(Person.query().filter(.related(Club.self, where: \.title == "Go")))
        #expect(members.map(\.name) == ["Itcast-2"])
        try store.write { tx in
            try tx.unlink(chess, people[0])
            try tx.delete(people[1])
        }
        #expect(try store.read { try $0.related(Person.self, of: chess) }.isEmpty)
        let prefetched = try store.read { try $0.fetch(Club.query().sorted(\.id), including: Person.self) }
        #expect(prefetched.map(\.related.count) == [0, 0])
    }
}

final class LockedCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.lock(); count += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}
