import Foundation
import GRDB
import Stash
import StashObjects
import StashObjectsMacros

// The `objects` suite's models, each as its implementation's users write it: Stash's
// `@Model` and plain `Codable` models, and GRDB records written by hand and through `Codable`.

// MARK: - Stash models

/// The model as the README tells users to write it: `@Model` writes its `init(row:)`.
@Model
struct BenchItem {
    var id: Int64?
    var i0, i1, i2, i3, i4, i5, i6, i7, i8, i9: Int
    static let entity = ObjectEntity<BenchItem>(table: "item")

    init(seed: Int) {
        id = nil
        (i0, i1, i2, i3, i4) = (seed, seed &+ 1, seed &+ 2, seed &+ 3, seed &+ 4)
        (i5, i6, i7, i8, i9) = (seed &+ 5, seed &+ 6, seed &+ 7, seed &+ 8, seed &+ 9)
    }
}

/// ``BenchItem`` as a plain `Codable` model without the macro: the cost of not using it.
struct BenchCodableItem: Model {
    var id: Int64?
    var i0, i1, i2, i3, i4, i5, i6, i7, i8, i9: Int
    static let entity = ObjectEntity<BenchCodableItem>(table: "item")

    init(_ item: BenchItem) {
        id = item.id
        (i0, i1, i2, i3, i4) = (item.i0, item.i1, item.i2, item.i3, item.i4)
        (i5, i6, i7, i8, i9) = (item.i5, item.i6, item.i7, item.i8, item.i9)
    }
}

@Model
struct BenchPerson {
    var id: Int64?
    var name: String
    var age: Int
    static let entity = ObjectEntity<BenchPerson>(table: "person")
}

@Model
struct BenchCard {
    var id: Int64?
    var number: String
    var ownerID: Int64
    static let entity = ObjectEntity<BenchCard>(table: "card").belongsTo(\.ownerID, BenchPerson.self, onDelete: .cascade)
}

// MARK: - GRDB records written by hand

struct ItemRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "item"
    var id: Int64?
    var i0, i1, i2, i3, i4, i5, i6, i7, i8, i9: Int

    init(_ item: BenchItem) {
        id = nil
        (i0, i1, i2, i3, i4, i5, i6, i7, i8, i9) = (item.i0, item.i1, item.i2, item.i3, item.i4, item.i5, item.i6, item.i7, item.i8, item.i9)
    }

    init(row: GRDB.Row) throws {
        id = row[0]
        i0 = row[1]; i1 = row[2]; i2 = row[3]; i3 = row[4]; i4 = row[5]
        i5 = row[6]; i6 = row[7]; i7 = row[8]; i8 = row[9]; i9 = row[10]
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["i0"] = i0; container["i1"] = i1; container["i2"] = i2; container["i3"] = i3; container["i4"] = i4
        container["i5"] = i5; container["i6"] = i6; container["i7"] = i7; container["i8"] = i8; container["i9"] = i9
    }
}

struct PersonRecord: FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "person"
    static let cards = hasMany(CardRecord.self, using: ForeignKey(["ownerID"]))
    var id: Int64?
    var name: String
    var age: Int

    init(id: Int64?, name: String, age: Int) { (self.id, self.name, self.age) = (id, name, age) }
    init(row: GRDB.Row) throws { id = row[0]; name = row[1]; age = row[2] }
    func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id; container["name"] = name; container["age"] = age
    }
    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

struct CardRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "card"
    var id: Int64?
    var number: String
    var ownerID: Int64

    init(id: Int64?, number: String, ownerID: Int64) { (self.id, self.number, self.ownerID) = (id, number, ownerID) }
    init(row: GRDB.Row) throws { id = row[0]; number = row[1]; ownerID = row[2] }
    func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id; container["number"] = number; container["ownerID"] = ownerID
    }
}

struct PersonWithCards: FetchableRecord {
    var person: PersonRecord
    var cards: [CardRecord]
    init(row: GRDB.Row) throws {
        person = try PersonRecord(row: row)
        cards = try row.prefetchedRows["cards"]?.map { try CardRecord(row: $0) } ?? []
    }
}

// MARK: - GRDB Codable records

struct ItemCodable: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "item"
    var id: Int64?
    var i0, i1, i2, i3, i4, i5, i6, i7, i8, i9: Int

    init(_ item: BenchItem) {
        id = nil
        (i0, i1, i2, i3, i4, i5, i6, i7, i8, i9) = (item.i0, item.i1, item.i2, item.i3, item.i4, item.i5, item.i6, item.i7, item.i8, item.i9)
    }
}

struct PersonCodable: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "person"
    static let cards = hasMany(CardCodable.self, using: ForeignKey(["ownerID"]))
    var id: Int64?
    var name: String
    var age: Int
    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

struct CardCodable: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "card"
    var id: Int64?
    var number: String
    var ownerID: Int64
}

struct PersonCodableWithCards: Decodable, FetchableRecord {
    var person: PersonCodable
    var cards: [CardCodable]
}
