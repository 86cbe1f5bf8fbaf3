import Foundation
import GRDB
import StashCore
import StashObjects
import StashTestSupport
import Testing

/// Every query operator against a real database, compared with the same query written in
/// SQL on the same file.
struct QueryOperatorTests {
    let folder = TemporaryFolder("objects-query")
    let store: ObjectStore
    let raw: DatabaseQueue

    init() throws {
        store = try folder.objectStore(ObjectSchema(Person.self))
        let seed = SeededGenerator.freshSeed(for: "QueryOperatorTests")
        var generator = SeededGenerator(seed: seed)
        let nicknames = ["ten", "Ten", nil, "a_b", "x%y", "star*", nil]
        var people = (1...60).map { index in
            Person(id: nil, name: "Itcast-\(index)", age: Int.random(in: 0...99, using: &generator), nickname: nicknames.randomElement(using: &generator)!)
        }
        people.append(Person(id: nil, name: "itcast-lower", age: 40, nickname: "TEN"))
        people.append(Person(id: nil, name: "Grace [Hopper]", age: 85, nickname: nil))
        try store.write { tx in try tx.insert(contentsOf: people) }
        raw = try folder.rawDatabase()
    }

    func check(_ query: ObjectQuery<Person>, _ sql: String, _ arguments: StatementArguments = [], ordered: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let objects = try store.fetch(query).map { $0.id! }
        let expected = try raw.read { db in try Int64.fetchAll(db, sql: "SELECT id FROM person WHERE \(sql)" + (ordered ? "" : ""), arguments: arguments) }
        if ordered {
            #expect(objects == expected, sourceLocation: sourceLocation)
        } else {
            #expect(objects.sorted() == expected.sorted(), sourceLocation: sourceLocation)
        }
        #expect(try store.count(query) == expected.count, sourceLocation: sourceLocation)
        #expect(try store.read { try $0.exists(query) } == !expected.isEmpty, sourceLocation: sourceLocation)
    }

    @Test func comparisons() throws {
        try check(Person.query().filter(\.age == 40), "age = 40")
        try check(Person.query().filter(\.age != 40), "age <> 40")
        try check(Person.query().filter(\.age < 30), "age < 30")
        try check(Person.query().filter(\.age <= 30), "age <= 30")
        try check(Person.query().filter(\.age > 30), "age > 30")
        try check(Person.query().filter(\.age >= 30), "age >= 30")
        try check(Person.query().filter(\.nickname == "ten"), "nickname = 'ten'")
        try check(Person.query().filter(\.nickname == nil), "nickname IS NULL")
        try check(Person.query().filter(\.nickname != nil), "nickname IS NOT NULL")
        try check(Person.query().filter(\.nickname > "b"), "nickname > 'b'")
    }

    @Test func membershipRangesAndNil() throws {
        try check(Person.query().filter(.in(\.age, [1, 40, 85])), "age IN (1, 40, 85)")
        try check(Person.query().filter(.in(\.nickname, ["ten", nil])), "nickname = 'ten' OR nickname IS NULL")
        try check(Person.query().filter(.in(\.age, [Int]())), "0")
        try check(Person.query().filter(.between(\.age, 20...30)), "age BETWEEN 20 AND 30")
        try check(Person.query().filter(.isNil(\.nickname)), "nickname IS NULL")
    }

    @Test func stringMatching() throws {
        try check(Person.query().filter(.like(\.name, "*Itcast-1*")), "name GLOB '*Itcast-1*'")
        try check(Person.query().filter(.like(\.name, "Itcast-?")), "name GLOB 'Itcast-?'")
        try check(Person.query().filter(.like(\.name, "itcast-1*", caseInsensitive: true)), "name LIKE 'itcast-1%'")
        try check(Person.query().filter(.contains(\.name, "[Hopper]")), "instr(name, '[Hopper]') > 0")
        try check(Person.query().filter(.contains(\.nickname, "%")), "instr(nickname, '%') > 0")
        try check(Person.query().filter(.contains(\.nickname, "_", caseInsensitive: true)), "instr(nickname, '_') > 0")
        try check(Person.query().filter(.contains(\.nickname, "*")), "instr(nickname, '*') > 0")
        try check(Person.query().filter(.contains(\.nickname, "TE", caseInsensitive: true)), "lower(nickname) LIKE '%te%'")
        try check(Person.query().filter(.hasPrefix(\.name, "Itcast-5")), "substr(name, 1, 8) = 'Itcast-5'")
        try check(Person.query().filter(.hasPrefix(\.name, "ITCAST", caseInsensitive: true)), "lower(substr(name, 1, 6)) = 'itcast'")
        try check(Person.query().filter(.hasSuffix(\.name, "-7")), "substr(name, -2) = '-7'")
        try check(Person.query().filter(.hasSuffix(\.nickname, "EN", caseInsensitive: true)), "lower(substr(nickname, -2)) = 'en'")
        try check(Person.query().filter(.equals(\.nickname, "ten", caseInsensitive: true)), "lower(nickname) = 'ten'")
    }

    @Test func logic() throws {
        try check(Person.query().filter(\.age > 20 && \.age < 50), "age > 20 AND age < 50")
        try check(Person.query().filter(\.age < 20 || \.nickname == "ten"), "age < 20 OR nickname = 'ten'")
        try check(Person.query().filter(!(\.age < 20)), "NOT (age < 20)")
        try check(Person.query().filter(\.age > 20).filter(.like(\.name, "*1*")), "age > 20 AND name GLOB '*1*'")
    }

    @Test func sortingLimitOffsetAndIds() throws {
        try check(Person.query().sorted(\.age, .descending).sorted(\.name), "1 ORDER BY age DESC, name", ordered: true)
        try check(Person.query().filter(.like(\.name, "*Itcast-1*")).sorted(\.age, .descending).sorted(\.id), "name GLOB '*Itcast-1*' ORDER BY age DESC, id", ordered: true)
        try check(Person.query().sorted(\.name).limit(5).offset(3), "1 ORDER BY name LIMIT 5 OFFSET 3", ordered: true)
        let ids = try store.read { try $0.ids(Person.query().filter(\.age >= 50).sorted(\.id)) }
        let expected = try raw.read { db in try Int64.fetchAll(db, sql: "SELECT id FROM person WHERE age >= 50 ORDER BY id") }
        #expect(ids == expected.map { Optional($0) })
        let first = try store.read { try $0.fetchOne(Person.query().sorted(\.age).sorted(\.id)) }
        let expectedFirst = try raw.read { db in try Int64.fetchOne(db, sql: "SELECT id FROM person ORDER BY age, id LIMIT 1") }
        #expect(first?.id == expectedFirst)
    }

    @Test func aggregates() throws {
        let query = Person.query().filter(\.age > 10)
        let (min, max, sum, average) = try store.read { reader in
            (try reader.min(\.age, in: query), try reader.max(\.age, in: query), try reader.sum(\.age, in: query), try reader.average(\.age, in: query))
        }
        let expected = try raw.read { db in try Row.fetchOne(db, sql: "SELECT MIN(age), MAX(age), TOTAL(age), AVG(age) FROM person WHERE age > 10")! }
        #expect(min == expected[0] as Int?)
        #expect(max == expected[1] as Int?)
        #expect(sum == expected[2] as Double)
        #expect(average == expected[3] as Double?)
        let none = try store.read { try $0.max(\.age, in: Person.query().filter(\.age > 1000)) }
        #expect(none == nil)
        let maxName = try store.read { try $0.max(\Person.name) }
        #expect(maxName == (try raw.read { db in try String.fetchOne(db, sql: "SELECT MAX(name) FROM person") }))
    }
}

extension QueryOperatorTests {
    /// `min`/`max`/`sum`/`average` over a sorted window (limit and offset) are the same
    /// functions over the same window written in SQL; without the window they would cover
    /// every object the filter keeps.
    @Test func aggregatesHonourLimitAndOffset() throws {
        let query = Person.query().filter(\.age > 10).sorted(\.age, .descending).sorted(\.id).offset(3).limit(5)
        let (min, max, sum, average, count) = try store.read { reader in
            (try reader.min(\.age, in: query), try reader.max(\.age, in: query), try reader.sum(\.age, in: query),
             try reader.average(\.age, in: query), try reader.count(query))
        }
        let expected = try raw.read { db in
            try Row.fetchOne(db, sql: """
                SELECT MIN(age), MAX(age), TOTAL(age), AVG(age), COUNT(*) FROM
                (SELECT age FROM person WHERE age > 10 ORDER BY age DESC, id LIMIT 5 OFFSET 3)
                """)!
        }
        #expect(count == 5)
        #expect(min == expected[0] as Int?)
        #expect(max == expected[1] as Int?)
        #expect(sum == expected[2] as Double)
        #expect(average == expected[3] as Double?)
        let whole = try raw.read { db in try Double.fetchOne(db, sql: "SELECT TOTAL(age) FROM person WHERE age > 10")! }
        #expect(sum < whole)
        let offsetOnly = try store.read { try $0.sum(\.age, in: Person.query().sorted(\.id).offset(60)) }
        let expectedTail = try raw.read { db in try Double.fetchOne(db, sql: "SELECT TOTAL(age) FROM (SELECT age FROM person ORDER BY id LIMIT -1 OFFSET 60)")! }
        #expect(offsetOnly == expectedTail)
    }
}
