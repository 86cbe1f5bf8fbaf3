import Foundation
import GRDB
import StashCore
@testable import StashObjects
import StashTestSupport
import Testing

/// Named relationships read by name: one-to-one, one-to-many, many-to-many, self-reference
/// both ways, two relationships between the same models; each read checked against SQL.
struct NamedRelationshipTests {
    let folder = TemporaryFolder("objects-named")
    let store: ObjectStore
    let graph: SeededGraph

    init() throws {
        store = try folder.objectStore(namedGraphSchema)
        graph = try SeededGraph.write(store)
    }

    @Test func oneToOneReadsBothWaysAndIsUniqueWithoutAHandWrittenUnique() throws {
        let emile = graph.members[0], jose = graph.members[1]
        let badge = try #require(try store.fetch(emile.badge))
        #expect(badge.code == "B100")
        #expect(try store.fetch(badge.member) == emile)
        #expect(try store.fetch(jose.badge) == nil)
        let indexes = try folder.rawDatabase().read { db in try Row.fetchAll(db, sql: "PRAGMA index_list(badge)") }
        #expect(indexes.contains { $0["name"] == "badge_memberID_unique" && $0["unique"] == 1 })
        #expect(errorCode { try store.write { tx in try tx.insert(Pass(id: nil, code: "again", memberID: emile.id!)) } } == .uniqueViolation)
    }

    @Test func oneToManyReadsBothWaysFilteredAndSortedFurther() throws {
        let member = graph.members[4]
        let cards = try store.fetch(member.cards)
        #expect(cards.map { $0.id! } == (try folder.sqlIDs("SELECT id FROM wallet_card WHERE holderID = ? ORDER BY id", [member.id])))
        #expect(cards.count == 4)
        #expect(try store.fetch(cards[0].holder) == member)
        let sorted = try store.read { try $0.fetch(member.cards.filter(.hasPrefix(\.number, "44")).sorted(\.number, .descending)) }
        #expect(sorted.map { $0.id! } == (try folder.sqlIDs("SELECT id FROM wallet_card WHERE holderID = ? AND number GLOB '44*' ORDER BY number DESC", [member.id])))
        #expect(try store.read { try $0.fetch(member.cards.sorted(\.number, .descending)) }.map(\.number) == cards.map(\.number).sorted(by: >))
        #expect(try store.count(member.cards.query) == 4)
    }

    @Test func selfReferenceReachesParentAndChildren() throws {
        let root = graph.members[1]
        let children = try store.fetch(root.children)
        #expect(children.map { $0.id! } == (try folder.sqlIDs("SELECT id FROM member WHERE parentID = ? ORDER BY id", [root.id])))
        #expect(!children.isEmpty)
        #expect(try store.fetch(children[0].parent) == root)
        #expect(try store.fetch(root.parent) == nil)
        // nullify: deleting the parent leaves the children without one.
        try store.write { tx in try tx.delete(root) }
        #expect(try store.fetch(Member.query().filter(.in(\.id, children.map(\.id)))).allSatisfy { $0.parentID == nil })
    }

    @Test func manyToManyLinksReadFromEitherSide() throws {
        let member = graph.members[0]
        let clubs = try store.fetch(member.clubs)
        let joinTable = try folder.rawDatabase().read { db in try db.tableExists("member_clubs") }
        #expect(joinTable)
        #expect(clubs.map(\.id) == ["bridge", "go"])
        let chess = try #require(try store.object(Society.self, id: "chess"))
        let members = try store.fetch(chess.members)
        #expect(members.map { $0.id! } == (try folder.sqlIDs("SELECT memberID FROM member_clubs WHERE societyID = 'chess' ORDER BY memberID")))
        try store.write { tx in
            try tx.link(member.clubs, chess)
            try tx.link(member.clubs, chess)
        }
        #expect(try store.fetch(chess.members).contains(member))
        try store.write { tx in try tx.unlink(member.clubs, chess) }
        #expect(try !store.fetch(chess.members).contains(member))
        // A one-to-many links by the key of the object added.
        let card = try #require(try store.object(WalletCard.self, id: 1))
        try store.write { tx in try tx.link(member.cards, card) }
        #expect(try store.object(WalletCard.self, id: 1)?.holderID == member.id)
    }

    @Test func twoRelationshipsBetweenTheSameModelsStayApart() throws {
        let member = graph.members[2]
        let sent = try store.fetch(member.sent), received = try store.fetch(member.received)
        #expect(sent.map { $0.id! } == (try folder.sqlIDs("SELECT id FROM message WHERE senderID = ? ORDER BY id", [member.id])))
        #expect(received.map { $0.id! } == (try folder.sqlIDs("SELECT id FROM message WHERE recipientID = ? ORDER BY id", [member.id])))
        #expect(sent.count == 1 && received.count == 2)
        #expect(try store.fetch(sent[0].recipient) == graph.members[1])
        // The pair of models alone is ambiguous: a typed error, not the first link found.
        #expect(errorCode { try store.read { try $0.related(Message.self, of: member) } } == .unknownAttribute)
    }

    @Test func aLazyReadIsOneStatement() throws {
        let member = graph.members[4]
        let counted = LockedCount()
        let (card, badge) = try store.read { reader in
            reader.db.trace { if case .statement = $0 { counted.increment() } }
            defer { reader.db.trace(options: [], nil) }
            return (try reader.fetch(member.cards), try reader.fetch(member.badge))
        }
        #expect(card.count == 4 && badge?.code == "B104")
        #expect(counted.value == 2)
    }
}
