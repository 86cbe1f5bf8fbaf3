import Foundation
import GRDB
import StashCore
import StashObjects
import StashTestSupport
import Testing

/// A one-to-one whose key is optional, so that relating a citizen to another passport
/// releases the first one.
struct Citizen: Model, Equatable {
    var id: Int64?
    var name: String
    static let passport = ToOne<Citizen, Passport>("passport", inverse: "holder")
    static let entity = ObjectEntity<Citizen>(table: "citizen").relationships(passport)
    var passport: RelatedObject<Passport> { related(Self.passport) }
}

struct Passport: Model, Equatable {
    var id: Int64?
    var number: String
    var holderID: Int64?
    static let holder = ToOne<Passport, Citizen>("holder", key: \.holderID, inverse: "passport", onDelete: .cascade)
    static let entity = ObjectEntity<Passport>(table: "passport").relationships(holder)
    var holder: RelatedObject<Citizen> { related(Self.holder) }
}

/// Relating objects by relationship name, never by writing a key: in a context (new and
/// stored objects, read back through the pending changes, undone, saved in one transaction)
/// and in a transaction. Each saved result is checked with SQL.
struct RelationshipEditingTests {
    let folder = TemporaryFolder("objects-relating")
    let store: ObjectStore
    let graph: SeededGraph

    init() throws {
        store = try folder.objectStore(ObjectSchema(Member.self, Pass.self, WalletCard.self, Issuer.self, Society.self, Message.self, Citizen.self, Passport.self))
        graph = try SeededGraph.write(store, members: 6)
    }

    // MARK: In a context

    @Test func aNewToOneIsSetByNameAndReadBothWaysBeforeTheSave() throws {
        let context = ObjectContext(store: store)
        let issuer = context.insert(Issuer(id: nil, name: "New Bank"))
        let card = context.insert(WalletCard(id: nil, number: "7700", holderID: graph.members[1].id!))
        try context.set(card.issuer, to: issuer)
        #expect(try context.fetch(card.issuer)?.name == "New Bank")
        #expect(try context.fetch(issuer.cards).map(\.number) == ["7700"])
        #expect(try context.object(WalletCard.self, id: card.id)?.issuerID == issuer.id)
        try context.save()
        let saved = try #require(try context.object(Issuer.self, id: issuer.id))
        #expect(try folder.sqlIDs("SELECT issuerID FROM wallet_card WHERE number = '7700'") == [saved.id!])
        // The handle made from the temporary id reads the saved objects.
        #expect(try context.fetch(issuer.cards).map(\.number) == ["7700"])
        #expect(try store.fetch(saved.cards).map(\.number) == ["7700"])
    }

    @Test func settingNilClearsAnOptionalKeyAndRefusesARequiredOne() throws {
        let context = ObjectContext(store: store)
        let card = try #require(try store.fetch(WalletCard.query().filter(\.issuerID != nil)).first)
        try context.set(card.issuer, to: nil)
        #expect(try context.fetch(card.issuer) == nil)
        #expect(errorCode { try context.set(card.holder, to: nil) } == .unsupportedValue)
        try context.save()
        #expect(try folder.sqlIDs("SELECT COUNT(*) FROM wallet_card WHERE id = ? AND issuerID IS NULL", [card.id]) == [1])
    }

    @Test func aOneToOneSetFromEitherSideReleasesTheObjectThatHeldIt() throws {
        let context = ObjectContext(store: store)
        let ada = context.insert(Citizen(id: nil, name: "Ada"))
        let first = context.insert(Passport(id: nil, number: "P-1"))
        try context.set(ada.passport, to: first)                 // from the side without the key
        #expect(try context.fetch(first.holder)?.name == "Ada")
        let second = context.insert(Passport(id: nil, number: "P-2"))
        try context.set(second.holder, to: ada)                  // from the side with the key
        #expect(try context.fetch(ada.passport)?.number == "P-2")
        #expect(try context.object(Passport.self, id: first.id)?.holderID == nil)
        try context.save()
        #expect(try folder.sqlIDs("SELECT COUNT(*) FROM passport WHERE holderID IS NOT NULL") == [1])
        let stored = try #require(try store.fetch(Citizen.query()).first)
        #expect(try store.fetch(stored.passport)?.number == "P-2")
    }

    @Test func aOneToOneThatCannotReleaseItsHolderChangesNothing() throws {
        let context = ObjectContext(store: store)
        let emile = graph.members[0]                       // holds badge B100, whose key is required
        let badge = context.insert(Pass(id: nil, code: "B999", memberID: graph.members[1].id!))
        let steps = context.canUndo
        #expect(errorCode { try context.set(emile.badge, to: badge) } == .unsupportedValue)
        #expect(try context.object(Pass.self, id: badge.id)?.memberID == graph.members[1].id)
        #expect(try context.fetch(emile.badge)?.code == "B100")
        #expect(context.canUndo == steps)
        context.undo()
        #expect(!context.hasChanges)
    }

    @Test func aToManyLinksByKeyAndUnlinksAnOptionalKeyOnly() throws {
        let context = ObjectContext(store: store)
        let issuer = graph.issuers[0]
        let card = context.insert(WalletCard(id: nil, number: "8800", holderID: graph.members[2].id!))
        try context.link(issuer.cards, card)
        #expect(try context.fetch(issuer.cards).contains { $0.number == "8800" })
        try context.unlink(issuer.cards, card)
        #expect(try !context.fetch(issuer.cards).contains { $0.number == "8800" })
        try context.link(issuer.cards, card)
        // Unlinking from an object it does not point at leaves it alone.
        try context.unlink(graph.issuers[1].cards, card)
        #expect(try context.object(WalletCard.self, id: card.id)?.issuerID == issuer.id)
        let held = try #require(try store.fetch(graph.members[1].cards).first)
        #expect(errorCode { try context.unlink(graph.members[1].cards, held) } == .unsupportedValue)
        try context.save()
        #expect(try folder.sqlIDs("SELECT issuerID FROM wallet_card WHERE number = '8800'") == [issuer.id!])
    }

    @Test func manyToManyLinksAreChangesUndoneRedoneAndSavedInOneTransaction() throws {
        let context = ObjectContext(store: store)
        let newcomer = context.insert(Member(id: nil, name: "Newcomer", age: 20))
        let poker = context.insert(Society(id: "poker", title: "Poker"))
        let chess = try #require(try store.object(Society.self, id: "chess"))
        try context.link(newcomer.clubs, poker)
        try context.link(chess.members, newcomer)                 // the inverse side: the same join table
        #expect(try context.fetch(newcomer.clubs).map(\.id).sorted() == ["chess", "poker"])
        #expect(try context.fetch(poker.members).map(\.name) == ["Newcomer"])
        #expect(context.undo())
        #expect(try context.fetch(newcomer.clubs).map(\.id) == ["poker"])
        #expect(context.redo())
        try context.save()
        let saved = try #require(try store.fetch(Member.query().filter(\.name == "Newcomer")).first)
        #expect(try folder.sqlIDs("SELECT COUNT(*) FROM member_clubs WHERE memberID = ?", [saved.id]) == [2])
        try context.unlink(saved.clubs, chess)
        try context.save()
        #expect(try store.fetch(saved.clubs).map(\.id) == ["poker"])
    }

    @Test func aLinkToAnObjectDeletedBeforeTheSaveIsLeftOut() throws {
        let context = ObjectContext(store: store)
        let go = try #require(try store.object(Society.self, id: "go"))
        let temporary = context.insert(Member(id: nil, name: "Brief", age: 30))
        try context.link(temporary.clubs, go)
        context.delete(temporary)
        let stored = graph.members[5]
        try context.link(stored.clubs, context.insert(Society(id: "darts", title: "Darts")))
        context.delete(stored)
        try context.save()
        #expect(try folder.sqlIDs("SELECT COUNT(*) FROM member WHERE name = 'Brief'") == [0])
        #expect(try folder.sqlIDs("SELECT COUNT(*) FROM member_clubs WHERE memberID = ?", [stored.id]) == [0])
    }

    @Test func aFailedSaveWritesNoLinkAndKeepsThemForTheNextSave() throws {
        let context = ObjectContext(store: store)
        let links = try folder.sqlIDs("SELECT COUNT(*) FROM member_clubs")
        let go = try #require(try store.object(Society.self, id: "go"))
        try context.link(graph.members[0].clubs, context.insert(Society(id: "sailing", title: "Sailing")))
        let newcomer = context.insert(Member(id: nil, name: graph.members[0].name, age: 20))   // a unique name taken
        try context.link(newcomer.clubs, go)
        #expect(errorCode { try context.save() } == .uniqueViolation)
        #expect(context.hasChanges)
        #expect(try folder.sqlIDs("SELECT COUNT(*) FROM member_clubs") == links)
        context.delete(newcomer)
        try context.save()
        #expect(try folder.sqlIDs("SELECT COUNT(*) FROM member_clubs") == [links[0] + 1])
    }

    // MARK: In a transaction

    @Test func aTransactionRelatesNewObjectsByName() throws {
        try store.write { tx in
            let ada = try tx.insert(Citizen(id: nil, name: "Ada"))
            let passport = try tx.insert(Passport(id: nil, number: "P-9"))
            try tx.set(ada.passport, to: passport)
            #expect(try tx.fetch(passport.holder)?.name == "Ada")
            let renewed = try tx.insert(Passport(id: nil, number: "P-10"))
            try tx.set(renewed.holder, to: ada)
            #expect(try tx.fetch(ada.passport)?.number == "P-10")
            let issuer = try tx.insert(Issuer(id: nil, name: "Tx Bank"))
            let card = try tx.insert(WalletCard(id: nil, number: "9900", holderID: graph.members[0].id!))
            try tx.link(issuer.cards, card)
            #expect(try tx.fetch(card.issuer)?.name == "Tx Bank")
            try tx.unlink(issuer.cards, card)
            #expect(try tx.fetch(card.issuer) == nil)
        }
        #expect(try folder.sqlIDs("SELECT COUNT(*) FROM passport WHERE holderID IS NOT NULL") == [1])
    }

    @Test func aTransactionRefusesAnUnstoredObjectAndARequiredKeyLeftEmpty() throws {
        let unsaved = WalletCard(id: 999_999, number: "0", holderID: graph.members[0].id!)
        #expect(errorCode { try store.write { tx in try tx.set(unsaved.issuer, to: graph.issuers[0]) } } == .notFound)
        let held = try #require(try store.fetch(graph.members[1].cards).first)
        #expect(errorCode { try store.write { tx in try tx.unlink(graph.members[1].cards, held) } } == .unsupportedValue)
        #expect(errorCode { try store.write { tx in try tx.set(held.holder, to: Member(id: 424_242, name: "nobody", age: 1)) } } == .missingRelatedObject)
    }
}
