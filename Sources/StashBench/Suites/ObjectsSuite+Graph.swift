import Foundation
import GRDB
import Stash
import StashObjects
import StashSQL

/// `graph-traverse` and `graph-nested`: reading named relationships against GRDB
/// associations written by hand (peer `grdb-association`), on 10,000 members, each with one
/// badge (a one-to-one) and 3 cards from 100 issuers.
///
/// Statements per repetition: `graph-traverse` stash 2 (members; badges `WHERE memberID IN
/// (SELECT id FROM member)`), stash-lazy 10,001 (members, then one `fetch(member.badge)`
/// each), grdb-association 1 (`including(required:)`, a JOIN); `graph-nested` stash 3
/// (members; cards; issuers of those cards, each read once), grdb-association 2 (members;
/// cards JOIN issuers, `including(all: cards.including(required: issuer))`).
extension ObjectsSuite {
    static let graphTablesSQL = """
        CREATE TABLE member(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL);
        CREATE TABLE badge(id INTEGER PRIMARY KEY AUTOINCREMENT, code TEXT NOT NULL,
          memberID INTEGER NOT NULL REFERENCES member(id) ON DELETE CASCADE);
        CREATE UNIQUE INDEX badge_memberID_unique ON badge(memberID);
        CREATE TABLE issuer(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL);
        CREATE TABLE gcard(id INTEGER PRIMARY KEY AUTOINCREMENT, number TEXT NOT NULL,
          holderID INTEGER NOT NULL REFERENCES member(id) ON DELETE CASCADE,
          issuerID INTEGER NOT NULL REFERENCES issuer(id) ON DELETE CASCADE);
        CREATE INDEX gcard_holderID_index ON gcard(holderID);
        CREATE INDEX gcard_issuerID_index ON gcard(issuerID);
        """

    static func graphTraversal(_ context: BenchContext, scratch: URL) async throws {
        guard ["graph-traverse", "graph-nested", "filter-folded"].contains(where: context.runs) else { return }
        let members = context.scaled(10_000)
        let cardsEach = 3
        let issuers = 100
        let stash = try ObjectStore(
            url: scratch.appendingPathComponent("stash-graph.sqlite"),
            schema: ObjectSchema(GraphMember.self, GraphBadge.self, GraphIssuer.self, GraphCard.self)
        )
        defer { try? stash.close() }
        let grdb = try StashDatabase.pool(at: scratch.appendingPathComponent("grdb-graph.sqlite"))
        try await grdb.write { db in try db.execute(sql: graphTablesSQL) }
        // The same rows, with the same ids, in both files.
        try await stash.write { tx in
            for issuer in 1...issuers { try tx.insert(GraphIssuer(id: Int64(issuer), name: "Issuer \(issuer)")) }
            for member in 1...members {
                try tx.insert(GraphMember(id: Int64(member), name: "Member \(member)"))
                try tx.insert(GraphBadge(id: Int64(member), code: "B\(member)", memberID: Int64(member)))
                for card in 0..<cardsEach {
                    let id = Int64((member - 1) * cardsEach + card + 1)
                    try tx.insert(GraphCard(id: id, number: "\(member)-\(card)", holderID: Int64(member), issuerID: Int64((member + card) % issuers + 1)))
                }
            }
        }
        try await grdb.write { db in
            for issuer in 1...issuers { try IssuerRecord(id: Int64(issuer), name: "Issuer \(issuer)").insert(db) }
            for member in 1...members {
                try MemberRecord(id: Int64(member), name: "Member \(member)").insert(db)
                try BadgeRecord(id: Int64(member), code: "B\(member)", memberID: Int64(member)).insert(db)
                for card in 0..<cardsEach {
                    let id = Int64((member - 1) * cardsEach + card + 1)
                    try GCardRecord(id: id, number: "\(member)-\(card)", holderID: Int64(member), issuerID: Int64((member + card) % issuers + 1)).insert(db)
                }
            }
        }

        // graph-traverse: every member and its badge, read by relationship.
        try await context.compare(suite: suite, case: "graph-traverse", [
            Contender("stash") {
                let graph = try stash.read { try $0.fetch(GraphMember.query().including(\.badge)) }
                var read = 0
                for member in graph where try graph.fetch(member.badge) != nil { read += 1 }
                return try expect(members, read, "stash")
            },
            Contender("stash-lazy") {
                let read = try stash.read { reader in
                    try reader.fetch(GraphMember.query()).reduce(0) { count, member in count + (try reader.fetch(member.badge) == nil ? 0 : 1) }
                }
                return try expect(members, read, "stash-lazy")
            },
            Contender("grdb-association") {
                let rows = try grdb.read { db in try MemberRecord.including(required: MemberRecord.badge).asRequest(of: MemberWithBadge.self).fetchAll(db) }
                return try expect(members, rows.count, "grdb-association")
            },
        ])

        // graph-nested: members with their cards with their issuers; ops = objects read.
        let objects = members + 2 * members * cardsEach
        try await context.compare(suite: suite, case: "graph-nested", [
            Contender("stash") {
                let graph = try stash.read { try $0.fetch(GraphMember.query().including(\.cards, including: \.issuer)) }
                var read = graph.count
                for member in graph {
                    for card in try graph.fetch(member.cards) where try graph.fetch(card.issuer) != nil { read += 2 }
                }
                return try expect(objects, read, "stash")
            },
            Contender("grdb-association") {
                let rows = try grdb.read { db in
                    try MemberRecord.including(all: MemberRecord.cards.including(required: GCardRecord.issuer)).asRequest(of: MemberWithCards.self).fetchAll(db)
                }
                return try expect(objects, rows.count + 2 * rows.reduce(0) { $0 + $1.cards.count }, "grdb-association")
            },
        ])
        // filter-folded: the cost of `[cd]` folding (the `stash_fold` SQL function, one call per
        // row) against the same scan comparing bytes; neither can use an index.
        try await context.compare(suite: suite, case: "filter-folded", [
            Contender("stash") {
                try expect(1, stash.count(GraphMember.query().filter(.equals(\.name, "MEMBER 1", caseInsensitive: true, diacriticInsensitive: true))), "stash")
            },
            Contender("stash-exact") {
                try expect(1, stash.count(GraphMember.query().filter(.like(\.name, "Member 1"))), "stash-exact")
            },
        ])
        context.reporter.note("objects graph-traverse: statements per run: stash 2 (prefetch), stash-lazy \(members + 1) (one per member), grdb-association 1 (JOIN); graph-nested: stash 3, grdb-association 2")
    }
}
