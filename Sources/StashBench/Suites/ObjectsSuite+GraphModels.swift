import Foundation
import GRDB
import Stash
import StashObjects
import StashObjectsMacros

// The models of `graph-traverse` and `graph-nested`: members with one badge each (a
// one-to-one) and several cards, each card from an issuer. Stash's with `@Model` and named
// relationships, GRDB's as hand-written records with associations.

// MARK: - Stash models

@Model
struct GraphMember {
    var id: Int64?
    var name: String
    static let badge = ToOne<GraphMember, GraphBadge>("badge", inverse: "member")
    static let cards = ToMany<GraphMember, GraphCard>("cards", inverse: "holder")
    static let entity = ObjectEntity<GraphMember>(table: "member").relationships(badge, cards)
}

@Model
struct GraphBadge {
    var id: Int64?
    var code: String
    var memberID: Int64
    static let member = ToOne<GraphBadge, GraphMember>("member", key: \.memberID, inverse: "badge", onDelete: .cascade)
    static let entity = ObjectEntity<GraphBadge>(table: "badge").relationships(member)
}

@Model
struct GraphIssuer {
    var id: Int64?
    var name: String
    static let cards = ToMany<GraphIssuer, GraphCard>("cards", inverse: "issuer")
    static let entity = ObjectEntity<GraphIssuer>(table: "issuer").relationships(cards)
}

@Model
struct GraphCard {
    var id: Int64?
    var number: String
    var holderID: Int64
    var issuerID: Int64
    static let holder = ToOne<GraphCard, GraphMember>("holder", key: \.holderID, inverse: "cards", onDelete: .cascade)
    static let issuer = ToOne<GraphCard, GraphIssuer>("issuer", key: \.issuerID, inverse: "cards", onDelete: .cascade)
    static let entity = ObjectEntity<GraphCard>(table: "gcard").relationships(holder, issuer)
}

// MARK: - GRDB records with associations, written by hand

struct MemberRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "member"
    static let badge = hasOne(BadgeRecord.self, using: ForeignKey(["memberID"]))
    static let cards = hasMany(GCardRecord.self, using: ForeignKey(["holderID"])).forKey("cards")
    var id: Int64
    var name: String

    init(id: Int64, name: String) { (self.id, self.name) = (id, name) }
    init(row: GRDB.Row) throws { id = row[0]; name = row[1] }
    func encode(to container: inout PersistenceContainer) throws { container["id"] = id; container["name"] = name }
}

struct BadgeRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "badge"
    var id: Int64
    var code: String
    var memberID: Int64

    init(id: Int64, code: String, memberID: Int64) { (self.id, self.code, self.memberID) = (id, code, memberID) }
    init(row: GRDB.Row) throws { id = row[0]; code = row[1]; memberID = row[2] }
    func encode(to container: inout PersistenceContainer) throws { container["id"] = id; container["code"] = code; container["memberID"] = memberID }
}

struct IssuerRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "issuer"
    var id: Int64
    var name: String

    init(id: Int64, name: String) { (self.id, self.name) = (id, name) }
    init(row: GRDB.Row) throws { id = row[0]; name = row[1] }
    func encode(to container: inout PersistenceContainer) throws { container["id"] = id; container["name"] = name }
}

struct GCardRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "gcard"
    static let issuer = belongsTo(IssuerRecord.self, using: ForeignKey(["issuerID"]))
    var id: Int64
    var number: String
    var holderID: Int64
    var issuerID: Int64

    init(id: Int64, number: String, holderID: Int64, issuerID: Int64) { (self.id, self.number, self.holderID, self.issuerID) = (id, number, holderID, issuerID) }
    init(row: GRDB.Row) throws { id = row[0]; number = row[1]; holderID = row[2]; issuerID = row[3] }
    func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id; container["number"] = number; container["holderID"] = holderID; container["issuerID"] = issuerID
    }
}

/// A member with its badge: `including(required:)`, one joined statement.
struct MemberWithBadge: FetchableRecord {
    var member: MemberRecord
    var badge: BadgeRecord
    init(row: GRDB.Row) throws {
        member = try MemberRecord(row: row)
        guard let scope = row.scopes["badge"] else { throw StashError(.io, "grdb-association: no badge scope") }
        badge = try BadgeRecord(row: scope)
    }
}

/// A member with its cards, each with its issuer: `including(all: cards.including(required: issuer))`.
struct MemberWithCards: FetchableRecord {
    var member: MemberRecord
    var cards: [(GCardRecord, IssuerRecord)]
    init(row: GRDB.Row) throws {
        member = try MemberRecord(row: row)
        cards = try (row.prefetchedRows["cards"] ?? []).map { card in
            guard let issuer = card.scopes["issuer"] else { throw StashError(.io, "grdb-association: no issuer scope") }
            return (try GCardRecord(row: card), try IssuerRecord(row: issuer))
        }
    }
}
