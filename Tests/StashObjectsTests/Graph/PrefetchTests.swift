import Foundation
import GRDB
import StashCore
@testable import StashObjects
import StashTestSupport
import Testing

/// Nested prefetch: a constant number of statements, the same objects as lazy reads.
struct PrefetchTests {
    let folder = TemporaryFolder("objects-prefetch")
    let store: ObjectStore
    let graph: SeededGraph

    init() throws {
        store = try folder.objectStore(namedGraphSchema)
        graph = try SeededGraph.write(store, members: 200)
    }

    /// The value `body` returns and the number of statements it ran.
    func counting<T>(_ body: (ObjectReader) throws -> T) throws -> (T, Int) {
        let counted = LockedCount()
        let value = try store.read { reader in
            reader.db.trace { if case .statement = $0 { counted.increment() } }
            defer { reader.db.trace(options: [], nil) }
            return try body(reader)
        }
        return (value, counted.value)
    }

    @Test func nestedPrefetchCostsOneStatementPerRelationship() throws {
        let query = Member.query().filter(\.age > 30).sorted(\.name)
        let (people, statements) = try counting { try $0.fetch(query.including(\.cards, including: \.issuer).including(\.badge)) }
        #expect(statements == 4)
        #expect(people.count == (try store.count(query)))
        // Every relationship as lazy reads give it.
        try store.read { reader in
            for person in people {
                let cards = try people.fetch(person.cards)
                #expect(cards == (try reader.fetch(person.cards)))
                #expect(try people.fetch(person.badge) == (try reader.fetch(person.badge)))
                for card in cards {
                    #expect(try people.fetch(card.issuer) == (try reader.fetch(card.issuer)))
                }
            }
        }
        #expect(people.contains { !((try? people.fetch($0.cards)) ?? []).isEmpty })
    }

    @Test func prefetchAcrossManyToManyAndSelfReferenceToAnyDepth() throws {
        let query = Member.query().filter(\.parentID == nil)
        let (roots, statements) = try counting {
            try $0.fetch(query.including(\.children, .including(\.children), .including(\.clubs, .including(\.members))))
        }
        #expect(statements == 5)
        try store.read { reader in
            for root in roots {
                let children = try roots.fetch(root.children)
                #expect(children == (try reader.fetch(root.children)))
                for child in children {
                    #expect(try roots.fetch(child.children) == (try reader.fetch(child.children)))
                    for club in try roots.fetch(child.clubs) {
                        #expect(try roots.fetch(club.members) == (try reader.fetch(club.members)))
                    }
                }
            }
        }
    }

    @Test func aPrefetchThatCyclesBackEndsAndKeepsEachObjectOnce() throws {
        let (people, statements) = try counting {
            try $0.fetch(Member.query().limit(20).including(\.cards, .including(\.holder, .including(\.cards))))
        }
        #expect(statements == 4)
        for person in people {
            let cards = try people.fetch(person.cards)
            #expect(Set(cards.map(\.id)).count == cards.count)
            for card in cards { #expect(try people.fetch(card.holder) == person) }
        }
    }

    @Test func aRelationshipThatWasNotIncludedIsATypedError() throws {
        let people = try store.read { try $0.fetch(Member.query().including(\.badge)) }
        var caught: StashError?
        do { _ = try people.fetch(people[0].cards) } catch let error as StashError { caught = error }
        #expect(caught?.code == .notPrefetched)
        #expect(caught?.key == "cards")
    }
}
