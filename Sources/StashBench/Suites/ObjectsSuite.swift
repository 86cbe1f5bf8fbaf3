import Foundation
import GRDB
import Stash
import StashSQL
import StashObjects
import StashObjectsMacros
import GRDBSQLite

/// `stash-bench objects`: StashObjects against GRDB records written by hand, GRDB `Codable`
/// records, GRDB's prepared statements (`grdb-statement`: its documentation's advice for
/// speed, a statement parsed once and run with new arguments, rows read from a cursor by
/// column index) and the raw SQLite C API, on GRDB's own performance workload (a record of ten
/// integer columns: insert 50,000 in one transaction, fetch 200,000) and on a graph (1,000
/// people with 10 cards each: insert, fetch all with their cards, filter people by card);
/// then observation latency (`ObjectsSuite+Observation.swift`), in the store and from another
/// store on the file (`ObjectsSuite+CrossInstance.swift`).
///
/// Every implementation uses the same table definitions, in its own file, WAL mode.
enum ObjectsSuite {
    static let suite = "objects"

    @Sendable static func run(_ context: BenchContext) async throws {
        try await measure(context)
        try await observation(context)
        try await crossInstanceObservation(context)
    }

    private static func measure(_ context: BenchContext) async throws {
        let scratch = try context.makeScratch(suite)
        defer { context.removeScratch(scratch) }
        let insertCount = context.scaled(50_000)
        let fetchCount = context.scaled(200_000)
        let people = context.scaled(1_000)

        let stash = try ObjectStore(url: scratch.appendingPathComponent("stash.sqlite"), schema: ObjectSchema(BenchItem.self, BenchPerson.self, BenchCard.self))
        let stashCodable = try ObjectStore(url: scratch.appendingPathComponent("stash-codable.sqlite"), schema: ObjectSchema(BenchCodableItem.self))
        let grdb = try StashDatabase.pool(at: scratch.appendingPathComponent("grdb.sqlite"))
        try await grdb.write { db in try db.execute(sql: tablesSQL) }
        let raw = try RawItems(path: scratch.appendingPathComponent("raw.sqlite").path)

        let items = (0..<max(insertCount, fetchCount)).map { BenchItem(seed: $0) }
        let inserts = Array(items.prefix(insertCount))

        // insert: 50,000 rows in one transaction, from an empty table.
        try await context.compare(suite: suite, case: "insert", [
            Contender("stash", prepare: { _ = try stash.write { tx in try tx.deleteAll(BenchItem.query()) } }) {
                try stash.write { tx -> Void in for item in inserts { try tx.insert(item) } }
                return inserts.count
            },
            Contender("grdb-record", prepare: { try grdb.write { db in try db.execute(sql: "DELETE FROM item") } }) {
                try grdb.write { db in for item in inserts { try ItemRecord(item).insert(db) } }
                return inserts.count
            },
            Contender("grdb-codable", prepare: { try grdb.write { db in try db.execute(sql: "DELETE FROM item") } }) {
                try grdb.write { db in for item in inserts { try ItemCodable(item).insert(db) } }
                return inserts.count
            },
            Contender("grdb-statement", prepare: { try grdb.write { db in try db.execute(sql: "DELETE FROM item") } }) {
                try grdb.write { db in
                    let statement = try db.makeStatement(sql: insertItemSQL)
                    for item in inserts {
                        statement.setUncheckedArguments([item.i0, item.i1, item.i2, item.i3, item.i4, item.i5, item.i6, item.i7, item.i8, item.i9])
                        try statement.execute()
                    }
                }
                return inserts.count
            },
            Contender("sqlite-raw", prepare: { try raw.execute("DELETE FROM item") }) {
                try raw.insert(inserts)
                return inserts.count
            },
        ])

        // fetch: 200,000 rows into values.
        let all = Array(items.prefix(fetchCount))
        if context.runs("fetch") {
            try await stash.write { tx in
                try tx.deleteAll(BenchItem.query())
                for item in all { try tx.insert(item) }
            }
            try await stashCodable.write { tx in
                try tx.deleteAll(BenchCodableItem.query())
                for item in all { try tx.insert(BenchCodableItem(item)) }
            }
            try await grdb.write { db in
                try db.execute(sql: "DELETE FROM item")
                for item in all { try ItemRecord(item).insert(db) }
            }
            try raw.execute("DELETE FROM item")
            try raw.insert(all)
        }
        try await context.compare(suite: suite, case: "fetch", [
            Contender("stash") { try expect(fetchCount, stash.fetch(BenchItem.query()).count, "stash") },
            Contender("stash-codable") { try expect(fetchCount, stashCodable.fetch(BenchCodableItem.query()).count, "stash-codable") },
            Contender("grdb-record") { try expect(fetchCount, grdb.read { db in try ItemRecord.fetchAll(db) }.count, "grdb-record") },
            Contender("grdb-codable") { try expect(fetchCount, grdb.read { db in try ItemCodable.fetchAll(db) }.count, "grdb-codable") },
            Contender("grdb-statement") {
                try expect(fetchCount, grdb.read { db in
                    let cursor = try Row.fetchCursor(db.makeStatement(sql: "SELECT * FROM item"))
                    var items: [ItemRecord] = []
                    while let row = try cursor.next() { items.append(try ItemRecord(row: row)) }
                    return items
                }.count, "grdb-statement")
            },
            Contender("sqlite-raw") { try expect(fetchCount, raw.fetchAll().count, "sqlite-raw") },
        ])

        try await graph(context, stash: stash, grdb: grdb, raw: raw, people: people)
        try await graphTraversal(context, scratch: scratch)
        context.reporter.note("objects: same tables for every implementation; stash models are written as the README says, with @Model (its init(row:) reads each column); stash-codable is the same model as a plain Codable struct (no macro), decoded through init(from:)")
    }

    static func expect(_ expected: Int, _ count: Int, _ impl: String) throws -> Int {
        guard count == expected else { throw StashError(.io, "objects bench \(impl): \(count) rows, expected \(expected)") }
        return count
    }

    /// The `graph-filter` condition every contender runs: the people with a card whose number
    /// matches the `GLOB` pattern bound to it.
    static let peopleWithCardPrefixSQL = "id IN (SELECT ownerID FROM card WHERE number GLOB ?)"

    /// `grdb-statement`'s insert, prepared once per transaction.
    static let insertItemSQL = "INSERT INTO item (i0, i1, i2, i3, i4, i5, i6, i7, i8, i9) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"

    static let tablesSQL = """
        CREATE TABLE item(id INTEGER PRIMARY KEY AUTOINCREMENT, i0 INTEGER NOT NULL, i1 INTEGER NOT NULL, i2 INTEGER NOT NULL,
          i3 INTEGER NOT NULL, i4 INTEGER NOT NULL, i5 INTEGER NOT NULL, i6 INTEGER NOT NULL, i7 INTEGER NOT NULL,
          i8 INTEGER NOT NULL, i9 INTEGER NOT NULL);
        CREATE TABLE person(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, age INTEGER NOT NULL);
        CREATE TABLE card(id INTEGER PRIMARY KEY AUTOINCREMENT, number TEXT NOT NULL,
          ownerID INTEGER NOT NULL REFERENCES person(id) ON DELETE CASCADE);
        CREATE INDEX card_ownerID_index ON card(ownerID);
        """

    // MARK: Graph

    private static func graph(_ context: BenchContext, stash: ObjectStore, grdb: DatabasePool, raw: RawItems, people: Int) async throws {
        let names = (0..<people).map { "Person \($0)" }
        let cardNumbers = (0..<people).map { person in (0..<10).map { "\(person.isMultiple(of: 2) ? "44" : "55")\(person)-\($0)" } }
        let objects = people * 11
        let clearStash = { _ = try stash.write { tx in try tx.deleteAll(BenchPerson.query()) } }
        let insertStash = {
            try stash.write { tx -> Void in
                for (index, name) in names.enumerated() {
                    let person = try tx.insert(BenchPerson(id: nil, name: name, age: index % 90))
                    for number in cardNumbers[index] { try tx.insert(BenchCard(id: nil, number: number, ownerID: person.id!)) }
                }
            }
        }
        let clearGRDB = { try grdb.write { db in try db.execute(sql: "DELETE FROM person") } }
        let insertRecords = {
            try grdb.write { db in
                for (index, name) in names.enumerated() {
                    let person = try PersonRecord(id: nil, name: name, age: index % 90).inserted(db)
                    for number in cardNumbers[index] { try CardRecord(id: nil, number: number, ownerID: person.id!).insert(db) }
                }
            }
        }
        let clearRaw = { try raw.execute("DELETE FROM person") }
        let insertRaw = { try raw.insertGraph(names: names, cards: cardNumbers) }
        try await context.compare(suite: suite, case: "graph-insert", [
            Contender("stash", prepare: clearStash) { try insertStash(); return objects },
            Contender("grdb-record", prepare: clearGRDB) { try insertRecords(); return objects },
            Contender("grdb-codable", prepare: clearGRDB) {
                try grdb.write { db in
                    for (index, name) in names.enumerated() {
                        let person = try PersonCodable(id: nil, name: name, age: index % 90).inserted(db)
                        for number in cardNumbers[index] { try CardCodable(id: nil, number: number, ownerID: person.id!).insert(db) }
                    }
                }
                return objects
            },
            Contender("sqlite-raw", prepare: clearRaw) { try insertRaw(); return objects },
        ])

        // The graph the reading cases read, written afresh whether graph-insert ran or not.
        try clearStash(); try insertStash()
        try clearGRDB(); try insertRecords()
        try clearRaw(); try insertRaw()

        try await context.compare(suite: suite, case: "graph-fetch", [
            Contender("stash") {
                let entries = try stash.read { try $0.fetch(BenchPerson.query(), including: BenchCard.self) }
                return try expect(objects, entries.count + entries.reduce(0) { $0 + $1.related.count }, "stash")
            },
            Contender("grdb-record") {
                let entries = try grdb.read { db in try PersonRecord.including(all: PersonRecord.cards).asRequest(of: PersonWithCards.self).fetchAll(db) }
                return try expect(objects, entries.count + entries.reduce(0) { $0 + $1.cards.count }, "grdb-record")
            },
            Contender("grdb-codable") {
                let entries = try grdb.read { db in try PersonCodable.including(all: PersonCodable.cards).asRequest(of: PersonCodableWithCards.self).fetchAll(db) }
                return try expect(objects, entries.count + entries.reduce(0) { $0 + $1.cards.count }, "grdb-codable")
            },
            Contender("sqlite-raw") {
                let (persons, cards) = try raw.fetchGraph()
                return try expect(objects, persons + cards, "sqlite-raw")
            },
        ])

        let matching = (people + 1) / 2
        try await context.compare(suite: suite, case: "graph-filter", [
            Contender("stash") {
                try expect(matching, stash.fetch(BenchPerson.query().filter(.related(BenchCard.self, where: .hasPrefix(\.number, "44")))).count, "stash")
            },
            // Every contender runs one SQL shape, Stash's: `id IN (SELECT … GLOB ?)`, so that the
            // figures compare libraries, not query plans (GRDB's `having(… isEmpty == false)`
            // is a LEFT JOIN, a GROUP BY and a case-insensitive LIKE).
            Contender("grdb-record") {
                try expect(matching, grdb.read { db in
                    try PersonRecord.filter(sql: Self.peopleWithCardPrefixSQL, arguments: ["44*"]).fetchAll(db)
                }.count, "grdb-record")
            },
            Contender("grdb-codable") {
                try expect(matching, grdb.read { db in
                    try PersonCodable.filter(sql: Self.peopleWithCardPrefixSQL, arguments: ["44*"]).fetchAll(db)
                }.count, "grdb-codable")
            },
            Contender("sqlite-raw") {
                try expect(matching, raw.countPeople(cardPrefix: "44"), "sqlite-raw")
            },
        ])
    }
}

// MARK: - Raw SQLite

/// The floor: prepared statements through the C API, values bound and read by index.
final class RawItems {
    private var db: OpaquePointer?

    init(path: String) throws {
        guard sqlite3_open(path, &db) == SQLITE_OK else { throw StashError(.io, "sqlite-raw: cannot open \(path)") }
        try execute("PRAGMA journal_mode=WAL; PRAGMA foreign_keys=ON")
        try execute(ObjectsSuite.tablesSQL)
    }

    deinit { sqlite3_close(db) }

    func execute(_ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            throw StashError(.io, "sqlite-raw: \(String(cString: sqlite3_errmsg(db)))")
        }
    }

    private func prepare(_ sql: String) throws -> OpaquePointer? {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else {
            throw StashError(.io, "sqlite-raw: \(String(cString: sqlite3_errmsg(db)))")
        }
        return statement
    }

    private func step(_ statement: OpaquePointer?) throws {
        guard sqlite3_step(statement) == SQLITE_DONE else { throw StashError(.io, "sqlite-raw: \(String(cString: sqlite3_errmsg(db)))") }
        sqlite3_reset(statement)
    }

    func insert(_ items: [BenchItem]) throws {
        let statement = try prepare("INSERT INTO item(i0, i1, i2, i3, i4, i5, i6, i7, i8, i9) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        defer { sqlite3_finalize(statement) }
        try execute("BEGIN IMMEDIATE")
        for item in items {
            for (index, value) in [item.i0, item.i1, item.i2, item.i3, item.i4, item.i5, item.i6, item.i7, item.i8, item.i9].enumerated() {
                sqlite3_bind_int64(statement, Int32(index + 1), Int64(value))
            }
            try step(statement)
        }
        try execute("COMMIT")
    }

    func fetchAll() throws -> [BenchItem] {
        let statement = try prepare("SELECT id, i0, i1, i2, i3, i4, i5, i6, i7, i8, i9 FROM item")
        defer { sqlite3_finalize(statement) }
        var items: [BenchItem] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            var item = BenchItem(seed: 0)
            item.id = sqlite3_column_int64(statement, 0)
            item.i0 = Int(sqlite3_column_int64(statement, 1)); item.i1 = Int(sqlite3_column_int64(statement, 2))
            item.i2 = Int(sqlite3_column_int64(statement, 3)); item.i3 = Int(sqlite3_column_int64(statement, 4))
            item.i4 = Int(sqlite3_column_int64(statement, 5)); item.i5 = Int(sqlite3_column_int64(statement, 6))
            item.i6 = Int(sqlite3_column_int64(statement, 7)); item.i7 = Int(sqlite3_column_int64(statement, 8))
            item.i8 = Int(sqlite3_column_int64(statement, 9)); item.i9 = Int(sqlite3_column_int64(statement, 10))
            items.append(item)
        }
        return items
    }

    func insertGraph(names: [String], cards: [[String]]) throws {
        let person = try prepare("INSERT INTO person(name, age) VALUES (?, ?)")
        let card = try prepare("INSERT INTO card(number, ownerID) VALUES (?, ?)")
        defer { sqlite3_finalize(person); sqlite3_finalize(card) }
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        try execute("BEGIN IMMEDIATE")
        for (index, name) in names.enumerated() {
            sqlite3_bind_text(person, 1, name, -1, transient)
            sqlite3_bind_int64(person, 2, Int64(index % 90))
            try step(person)
            let id = sqlite3_last_insert_rowid(db)
            for number in cards[index] {
                sqlite3_bind_text(card, 1, number, -1, transient)
                sqlite3_bind_int64(card, 2, id)
                try step(card)
            }
        }
        try execute("COMMIT")
    }

    /// People, then all their cards grouped by owner: two statements.
    func fetchGraph() throws -> (Int, Int) {
        let people = try prepare("SELECT id, name, age FROM person")
        let cards = try prepare("SELECT id, number, ownerID FROM card WHERE ownerID IN (SELECT id FROM person)")
        defer { sqlite3_finalize(people); sqlite3_finalize(cards) }
        var persons: [Int64: (BenchPerson, [BenchCard])] = [:]
        while sqlite3_step(people) == SQLITE_ROW {
            let id = sqlite3_column_int64(people, 0)
            persons[id] = (BenchPerson(id: id, name: String(cString: sqlite3_column_text(people, 1)), age: Int(sqlite3_column_int64(people, 2))), [])
        }
        var count = 0
        while sqlite3_step(cards) == SQLITE_ROW {
            let owner = sqlite3_column_int64(cards, 2)
            persons[owner]?.1.append(BenchCard(id: sqlite3_column_int64(cards, 0), number: String(cString: sqlite3_column_text(cards, 1)), ownerID: owner))
            count += 1
        }
        return (persons.count, count)
    }

    func countPeople(cardPrefix: String) throws -> Int {
        let statement = try prepare("SELECT id, name, age FROM person WHERE \(ObjectsSuite.peopleWithCardPrefixSQL)")
        defer { sqlite3_finalize(statement) }
        sqlite3_bind_text(statement, 1, cardPrefix + "*", -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        var people: [BenchPerson] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            people.append(BenchPerson(id: sqlite3_column_int64(statement, 0), name: String(cString: sqlite3_column_text(statement, 1)), age: Int(sqlite3_column_int64(statement, 2))))
        }
        return people.count
    }
}
