import Foundation
import GRDB
import StashObjects
import StashTestSupport

// A graph in the plain `Model` protocol form (no macro): every kind of named relationship.

/// Self-reference both ways (parent, children), a one-to-one (badge), a one-to-many (cards),
/// a many-to-many (clubs), and two relationships with one model (sent, received).
struct Member: Model, Equatable {
    var id: Int64?
    var name: String
    var age: Int
    var parentID: Int64?

    static let parent = ToOne<Member, Member>("parent", key: \.parentID, inverse: "children", onDelete: .nullify)
    static let children = ToMany<Member, Member>("children", inverse: "parent")
    static let badge = ToOne<Member, Pass>("badge", inverse: "member")
    static let cards = ToMany<Member, WalletCard>("cards", inverse: "holder")
    static let clubs = ToMany<Member, Society>("clubs", inverse: "members")
    static let sent = ToMany<Member, Message>("sent", inverse: "sender")
    static let received = ToMany<Member, Message>("received", inverse: "recipient")
    static let entity = ObjectEntity<Member>(table: "member").unique(\.name)
        .relationships(parent, children, badge, cards, clubs, sent, received)

    var parent: RelatedObject<Member> { related(Self.parent) }
    var children: RelatedObjects<Member> { related(Self.children) }
    var badge: RelatedObject<Pass> { related(Self.badge) }
    var cards: RelatedObjects<WalletCard> { related(Self.cards) }
    var clubs: RelatedObjects<Society> { related(Self.clubs) }
    var sent: RelatedObjects<Message> { related(Self.sent) }
    var received: RelatedObjects<Message> { related(Self.received) }
}

/// One per member at most: the other side of a one-to-one.
struct Pass: Model, Equatable {
    var id: Int64?
    var code: String
    var memberID: Int64
    static let member = ToOne<Pass, Member>("member", key: \.memberID, inverse: "badge", onDelete: .cascade)
    static let entity = ObjectEntity<Pass>(table: "badge").relationships(member)
    var member: RelatedObject<Member> { related(Self.member) }
}

struct WalletCard: Model, Equatable {
    var id: Int64?
    var number: String
    var holderID: Int64
    var issuerID: Int64?
    static let holder = ToOne<WalletCard, Member>("holder", key: \.holderID, inverse: "cards", onDelete: .cascade)
    static let issuer = ToOne<WalletCard, Issuer>("issuer", key: \.issuerID, inverse: "cards", onDelete: .nullify)
    static let entity = ObjectEntity<WalletCard>(table: "wallet_card").relationships(holder, issuer)
    var holder: RelatedObject<Member> { related(Self.holder) }
    var issuer: RelatedObject<Issuer> { related(Self.issuer) }
}

struct Issuer: Model, Equatable {
    var id: Int64?
    var name: String
    static let cards = ToMany<Issuer, WalletCard>("cards", inverse: "issuer")
    static let entity = ObjectEntity<Issuer>().relationships(cards)
    var cards: RelatedObjects<WalletCard> { related(Self.cards) }
}

struct Society: Model, Equatable {
    var id: String
    var title: String
    static let members = ToMany<Society, Member>("members", inverse: "clubs")
    static let entity = ObjectEntity<Society>().relationships(members)
    var members: RelatedObjects<Member> { related(Self.members) }
}

/// Two relationships with Member: sender and recipient.
struct Message: Model, Equatable {
    var id: Int64?
    var text: String
    var senderID: Int64
    var recipientID: Int64
    static let sender = ToOne<Message, Member>("sender", key: \.senderID, inverse: "sent", onDelete: .cascade)
    static let recipient = ToOne<Message, Member>("recipient", key: \.recipientID, inverse: "received", onDelete: .cascade)
    static let entity = ObjectEntity<Message>().relationships(sender, recipient)
    var sender: RelatedObject<Member> { related(Self.sender) }
    var recipient: RelatedObject<Member> { related(Self.recipient) }
}

let namedGraphSchema = ObjectSchema(Member.self, Pass.self, WalletCard.self, Issuer.self, Society.self, Message.self)

/// A seeded graph: 30 members (every member after the third has a parent), a badge for
/// every other member, 0–4 cards each from 3 issuers (some cards without one), clubs, and
/// messages.
struct SeededGraph {
    var members: [Member] = []
    var issuers: [Issuer] = []

    static func write(_ store: ObjectStore, members count: Int = 30) throws -> SeededGraph {
        try store.write { tx in
            var graph = SeededGraph()
            graph.issuers = try ["Äcme Bänk", "Zürich Trust", "acme bank"].map { try tx.insert(Issuer(id: nil, name: $0)) }
            let clubs = try ["chess", "go", "bridge"].map { try tx.insert(Society(id: $0, title: $0.capitalized)) }
            for index in 0..<count {
                let parent = index >= 3 ? graph.members[index % 3].id : nil
                let member = try tx.insert(Member(id: nil, name: ["Émile", "José", "Zoë", "ada", "ADA"].indices.contains(index) ? ["Émile", "José", "Zoë", "ada", "ADA"][index] : "Member-\(index)", age: 18 + (index * 7) % 50, parentID: parent))
                graph.members.append(member)
                if index.isMultiple(of: 2) { try tx.insert(Pass(id: nil, code: "B\(100 + index)", memberID: member.id!)) }
                for card in 0..<(index % 5) {
                    let issuer = (index + card) % 4 == 3 ? nil : graph.issuers[(index + card) % 3].id
                    try tx.insert(WalletCard(id: nil, number: "\(card.isMultiple(of: 2) ? "44" : "55")\(index)-\(card)", holderID: member.id!, issuerID: issuer))
                }
                for (offset, club) in clubs.enumerated() where (index + offset) % 3 != 0 { try tx.link(member.clubs, club) }
                if index > 0 { try tx.insert(Message(id: nil, text: "hi \(index)", senderID: member.id!, recipientID: graph.members[index / 2].id!)) }
            }
            return graph
        }
    }
}

extension TemporaryFolder {
    /// The integers `sql` selects from the store's file, through plain GRDB.
    func sqlIDs(_ sql: String, _ arguments: StatementArguments = []) throws -> [Int64] {
        try rawDatabase().read { db in try Int64.fetchAll(db, sql: sql, arguments: arguments) }
    }
}
