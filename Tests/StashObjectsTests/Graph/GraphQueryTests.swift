import Foundation
import GRDB
import StashCore
@testable import StashObjects
import StashTestSupport
import Testing

/// Queries across the graph, each checked against the same query written in SQL.
struct GraphQueryTests {
    let folder = TemporaryFolder("objects-graph-query")
    let store: ObjectStore
    let graph: SeededGraph

    init() throws {
        store = try folder.objectStore(namedGraphSchema)
        graph = try SeededGraph.write(store)
    }

    func ids<M: Model>(_ query: ObjectQuery<M>) throws -> [Int64] where M.ID == Int64? {
        try store.fetch(query).map { $0.id! }
    }

    @Test func keyPathsThroughToOneRelationshipsFilter() throws {
        #expect(try ids(Member.query().filter(Member.badge.code == "B104")) == (try folder.sqlIDs("SELECT memberID FROM badge WHERE code = 'B104'")))
        #expect(try ids(Member.query().filter(Member.badge.code >= "B120").sorted(\.id))
            == (try folder.sqlIDs("SELECT m.id FROM member m JOIN badge b ON b.memberID = m.id WHERE b.code >= 'B120' ORDER BY m.id")))
        // Two steps, through a self-reference.
        let twoSteps = try ids(WalletCard.query().filter(WalletCard.holder.parent.name == "José").sorted(\.id))
        #expect(twoSteps == (try folder.sqlIDs("SELECT c.id FROM wallet_card c JOIN member h ON h.id = c.holderID JOIN member p ON p.id = h.parentID WHERE p.name = 'José' ORDER BY c.id")))
        #expect(!twoSteps.isEmpty)
        let parent = try ids(Member.query().filter(Member.parent.age > 20).sorted(\.id))
        #expect(parent == (try folder.sqlIDs("SELECT m.id FROM member m JOIN member p ON p.id = m.parentID WHERE p.age > 20 ORDER BY m.id")))
        // A path that ends nowhere passes no comparison.
        #expect(try store.count(Member.query().filter(Member.parent.parentID == nil)) == (try folder.sqlIDs("SELECT m.id FROM member m JOIN member p ON p.id = m.parentID WHERE p.parentID IS NULL")).count)
        #expect(errorCode { try store.fetch(Member.query().filter(Member.badge.memberID == 1 && Member.parent.age == 1)) } == nil)
    }

    @Test func keyPathsThroughToOneRelationshipsSort() throws {
        let sorted = try ids(Member.query().filter(\.parentID != nil).sorted(Member.parent.name, .descending).sorted(\.id))
        #expect(sorted == (try folder.sqlIDs("SELECT m.id FROM member m JOIN member p ON p.id = m.parentID ORDER BY p.name DESC, m.id")))
        let byIssuer = try ids(WalletCard.query().sorted(WalletCard.issuer.name).sorted(\.id))
        #expect(byIssuer == (try folder.sqlIDs("SELECT c.id FROM wallet_card c LEFT JOIN issuer i ON i.id = c.issuerID ORDER BY i.name, c.id")))
    }

    func expectCount(_ filter: ObjectFilter<Member>, _ sql: String) throws {
        let expected = try folder.sqlIDs("SELECT id FROM member WHERE (SELECT COUNT(*) FROM wallet_card c WHERE c.holderID = member.id) \(sql) ORDER BY id")
        #expect(try ids(Member.query().filter(filter).sorted(\.id)) == expected, "count \(sql)")
    }

    @Test func anyAllAndCountOverToMany() throws {
        #expect(try ids(Member.query().filter(.any(\.cards, where: .hasPrefix(\.number, "55"))).sorted(\.id))
            == (try folder.sqlIDs("SELECT id FROM member WHERE EXISTS (SELECT 1 FROM wallet_card c WHERE c.holderID = member.id AND c.number GLOB '55*') ORDER BY id")))
        #expect(try ids(Member.query().filter(.all(\.cards, where: .hasPrefix(\.number, "44"))).sorted(\.id))
            == (try folder.sqlIDs("SELECT id FROM member WHERE NOT EXISTS (SELECT 1 FROM wallet_card c WHERE c.holderID = member.id AND NOT (c.number GLOB '44*')) ORDER BY id")))
        // ALL with a NULL attribute: the card without an issuer fails `issuerID != nil`-like tests.
        #expect(try ids(Member.query().filter(.all(\.cards, where: \.issuerID > 0)).sorted(\.id))
            == (try folder.sqlIDs("SELECT id FROM member WHERE NOT EXISTS (SELECT 1 FROM wallet_card c WHERE c.holderID = member.id AND (c.issuerID > 0) IS NOT 1) ORDER BY id")))
        try expectCount(.count(\.cards) > 3, "> 3")
        try expectCount(.count(\.cards) == 0, "= 0")
        try expectCount(.count(\.cards) <= 1, "<= 1")
        try expectCount(.count(\.cards) != 2, "<> 2")
        try expectCount(.count(\.cards) >= 0, ">= 0")
        try expectCount(.count(\.cards) < 3, "< 3")
        #expect(try ids(Member.query().filter(.count(\.cards, where: .hasPrefix(\.number, "44")) == 2).sorted(\.id))
            == (try folder.sqlIDs("SELECT id FROM member WHERE (SELECT COUNT(*) FROM wallet_card c WHERE c.holderID = member.id AND c.number GLOB '44*') = 2 ORDER BY id")))
        // Many-to-many and a self-reference.
        #expect(try ids(Member.query().filter(.count(\.clubs) >= 2 && .any(\.clubs, where: \.title == "Chess")).sorted(\.id))
            == (try folder.sqlIDs("SELECT id FROM member WHERE (SELECT COUNT(*) FROM member_clubs j WHERE j.memberID = member.id) >= 2 AND id IN (SELECT memberID FROM member_clubs WHERE societyID = 'chess') ORDER BY id")))
        #expect(try ids(Member.query().filter(.count(\.children) > 5).sorted(\.id))
            == (try folder.sqlIDs("SELECT id FROM member p WHERE (SELECT COUNT(*) FROM member c WHERE c.parentID = p.id) > 5 ORDER BY id")))
        #expect(try ids(Member.query().filter(.related(\.badge, where: .hasSuffix(\.code, "0"))).sorted(\.id))
            == (try folder.sqlIDs("SELECT memberID FROM badge WHERE code GLOB '*0' ORDER BY memberID")))
    }

    @Test func groupByAggregates() throws {
        let counts = try store.read { try $0.count(WalletCard.query(), groupedBy: \.issuerID) }
        let expected = try folder.rawDatabase().read { db in
            try Row.fetchAll(db, sql: "SELECT issuerID, COUNT(*) FROM wallet_card GROUP BY issuerID").map { ($0[0] as Int64?, $0[1] as Int) }
        }
        #expect(counts == Dictionary(uniqueKeysWithValues: expected))
        #expect(counts[nil] != nil)
        let ages = try store.read { try $0.max(\Member.age, in: Member.query().filter(\.parentID != nil), groupedBy: \.parentID) }
        let expectedAges = try folder.rawDatabase().read { db in
            try Row.fetchAll(db, sql: "SELECT parentID, MAX(age) FROM member WHERE parentID IS NOT NULL GROUP BY parentID").map { ($0[0] as Int64?, $0[1] as Int) }
        }
        #expect(ages == Dictionary(uniqueKeysWithValues: expectedAges))
        let sums = try store.read { try $0.sum(\Member.age, in: Member.query().sorted(\.id).limit(10), groupedBy: \.parentID) }
        let expectedSums = try folder.rawDatabase().read { db in
            try Row.fetchAll(db, sql: "SELECT parentID, TOTAL(age) FROM (SELECT * FROM member ORDER BY id LIMIT 10) GROUP BY parentID").map { ($0[0] as Int64?, $0[1] as Double) }
        }
        #expect(sums == Dictionary(uniqueKeysWithValues: expectedSums))
    }

    @Test func upsertOnAUniqueAttributeKeepsTheExistingID() throws {
        let ada = graph.members[3]
        let saved = try store.write { tx in try tx.upsert(Member(id: nil, name: "ada", age: 99, parentID: nil), onConflict: \.name) }
        #expect(saved.id == ada.id)
        let rows = try folder.rawDatabase().read { db in try Row.fetchAll(db, sql: "SELECT id, age FROM member WHERE name = 'ada'") }
        #expect(rows.count == 1 && rows[0]["id"] == ada.id && rows[0]["age"] == 99)
        let fresh = try store.write { tx in try tx.upsert(Member(id: nil, name: "Grace", age: 40, parentID: nil), onConflict: \.name) }
        #expect(fresh.id == (try folder.sqlIDs("SELECT id FROM member WHERE name = 'Grace'")).first)
        // Not declared unique: refused before anything is written.
        #expect(errorCode { try store.write { tx in try tx.upsert(Member(id: nil, name: "X", age: 1, parentID: nil), onConflict: \.age) } } == .invalidSchema)
        #expect(try store.count(Member.query().filter(\.name == "X")) == 0)
        // The key of a one-to-one is unique too.
        let badge = try store.write { tx in try tx.upsert(Pass(id: nil, code: "NEW", memberID: graph.members[0].id!), onConflict: \.memberID) }
        #expect(try store.fetch(graph.members[0].badge) == badge)
    }

    @Test func caseAndDiacriticInsensitiveBeyondASCII() throws {
        let names = try store.fetch(Member.query()).map(\.name)
        func expected(_ test: (String) -> Bool) -> [String] { names.filter(test).sorted() }
        func fetched(_ filter: ObjectFilter<Member>) throws -> [String] { try store.fetch(Member.query().filter(filter)).map(\.name).sorted() }
        #expect(try fetched(.equals(\.name, "emile", caseInsensitive: true, diacriticInsensitive: true)) == ["Émile"])
        #expect(try fetched(.equals(\.name, "émile", caseInsensitive: true)) == ["Émile"])
        #expect(try fetched(.equals(\.name, "emile", caseInsensitive: true)) == [])
        #expect(try fetched(.equals(\.name, "EMILE", caseInsensitive: false, diacriticInsensitive: true)) == [])
        #expect(try fetched(.equals(\.name, "Emile", caseInsensitive: false, diacriticInsensitive: true)) == ["Émile"])
        #expect(try fetched(.like(\.name, "jos?", caseInsensitive: true, diacriticInsensitive: true)) == ["José"])
        #expect(try fetched(.contains(\.name, "OË", caseInsensitive: true)) == ["Zoë"])
        #expect(try fetched(.hasPrefix(\.name, "ada", caseInsensitive: true)) == expected { $0.lowercased().hasPrefix("ada") })
        #expect(try fetched(.hasSuffix(\.name, "-1", caseInsensitive: true)) == expected { $0.hasSuffix("-1") })
        let issuers = try store.fetch(Issuer.query().filter(.contains(\.name, "acme bank", caseInsensitive: true, diacriticInsensitive: true))).map(\.name).sorted()
        #expect(issuers == ["acme bank", "Äcme Bänk"])
        // Wildcards in the text are literal.
        #expect(try fetched(.contains(\.name, "*", caseInsensitive: true)) == [])
    }
}
