import Foundation
import GRDB
import StashCore
import StashObjects
import StashTestSupport
import Testing

/// Attributes dropped, retyped, made required or optional: migrated by a table rebuild where
/// the data allows, refused naming the attribute (the file untouched) where it does not.
struct AttributeMigrationTests {
    struct ItemV1: Model {
        var id: Int64?
        var name: String
        var count: Int
        var note: String?
        var code: String
        var label: String?
        static let entity = ObjectEntity<ItemV1>(table: "item")
    }

    /// Seeds two items; `code` and `label` are given per item.
    func seed(_ label: String, codes: [String] = ["42", "7"], labels: [String?] = ["a", "b"]) throws -> MigrationFixture {
        try MigrationFixture(label, ObjectSchema(ItemV1.self)) { tx in
            try tx.insert(ItemV1(id: nil, name: "one", count: 1, note: "n1", code: codes[0], label: labels[0]))
            try tx.insert(ItemV1(id: nil, name: "two", count: 2, note: nil, code: codes[1], label: labels[1]))
        }
    }

    @Test func anOptionalAttributeDroppedLeavesTheTable() throws {
        struct Item: Model {
            var id: Int64?
            var name: String
            var count: Int
            var code: String
            var label: String?
            static let entity = ObjectEntity<Item>(table: "item")
        }
        let fixture = try seed("objects-migrate-drop-optional")
        let store = try fixture.open(ObjectSchema(Item.self))
        #expect(try fixture.columns("item") == ["id INTEGER", "name TEXT NOT NULL", "count INTEGER NOT NULL", "code TEXT NOT NULL", "label TEXT"])
        #expect(try store.fetch(Item.query().sorted(\.id)).map(\.name) == ["one", "two"])
        try store.close()
        try fixture.expectSecondOpenWritesNothing(ObjectSchema(Item.self))
    }

    /// The defect: the NOT NULL column stayed behind and every later insert failed.
    @Test func aNonOptionalAttributeDroppedNoLongerBlocksInserts() throws {
        struct Item: Model {
            var id: Int64?
            var name: String
            var code: String
            static let entity = ObjectEntity<Item>(table: "item")
        }
        let fixture = try seed("objects-migrate-drop-required")
        let store = try fixture.open(ObjectSchema(Item.self))
        try store.write { tx in try tx.insert(Item(id: nil, name: "three", code: "3")) }
        #expect(try store.fetch(Item.query().sorted(\.id)).map(\.name) == ["one", "two", "three"])
        #expect(try fixture.columns("item") == ["id INTEGER", "name TEXT NOT NULL", "code TEXT NOT NULL"])
        try store.close()
        try fixture.expectSecondOpenWritesNothing(ObjectSchema(Item.self))
    }

    @Test func anIntegerRetypedAsAStringKeepsItsValues() throws {
        struct Item: Model {
            var id: Int64?
            var name: String
            var count: String
            static let entity = ObjectEntity<Item>(table: "item")
        }
        let fixture = try seed("objects-migrate-int-string")
        let store = try fixture.open(ObjectSchema(Item.self))
        #expect(try store.fetch(Item.query().sorted(\.id)).map(\.count) == ["1", "2"])
        #expect(try fixture.columns("item").contains("count TEXT NOT NULL"))
        try store.close()
        try fixture.expectSecondOpenWritesNothing(ObjectSchema(Item.self))
    }

    struct NumericCode: Model {
        var id: Int64?
        var name: String
        var code: Int
        static let entity = ObjectEntity<NumericCode>(table: "item")
    }

    @Test func aStringRetypedAsAnIntegerConvertsDigits() throws {
        let fixture = try seed("objects-migrate-string-int")
        let store = try fixture.open(ObjectSchema(NumericCode.self))
        #expect(try store.fetch(NumericCode.query().sorted(\.id)).map(\.code) == [42, 7])
        #expect(try store.count(NumericCode.query().filter(\.code > 10)) == 1)
        try store.close()
        try fixture.expectSecondOpenWritesNothing(ObjectSchema(NumericCode.self))
    }

    @Test func aStringThatIsNoIntegerRefusesTheRetypeUntouched() throws {
        let fixture = try seed("objects-migrate-string-int-bad", codes: ["42", "4x2"])
        fixture.expectRefusal(ObjectSchema(NumericCode.self), key: "NumericCode.code")
        // The old app still reads its data.
        #expect(try fixture.open(ObjectSchema(ItemV1.self)).fetch(ItemV1.query().sorted(\.id)).map(\.code) == ["42", "4x2"])
    }

    struct RequiredLabel: Model {
        var id: Int64?
        var name: String
        var label: String
        static let entity = ObjectEntity<RequiredLabel>(table: "item")
    }

    @Test func anOptionalMadeRequiredWithoutNils() throws {
        let fixture = try seed("objects-migrate-required")
        let store = try fixture.open(ObjectSchema(RequiredLabel.self))
        #expect(try fixture.columns("item").contains("label TEXT NOT NULL"))
        #expect(try store.fetch(RequiredLabel.query().sorted(\.id)).map(\.label) == ["a", "b"])
        try store.close()
        try fixture.expectSecondOpenWritesNothing(ObjectSchema(RequiredLabel.self))
    }

    @Test func anOptionalMadeRequiredWithNilsIsRefusedUntouched() throws {
        let fixture = try seed("objects-migrate-required-nil", labels: ["a", nil])
        fixture.expectRefusal(ObjectSchema(RequiredLabel.self), key: "RequiredLabel.label")
    }

    @Test func anOptionalMadeRequiredWithNilsAndADefaultIsFilled() throws {
        struct Item: Model {
            var id: Int64?
            var name: String
            var label: String
            static let entity = ObjectEntity<Item>(table: "item").defaultValue(\.label, "none")
        }
        let fixture = try seed("objects-migrate-required-default", labels: ["a", nil])
        let store = try fixture.open(ObjectSchema(Item.self))
        #expect(try store.fetch(Item.query().sorted(\.id)).map(\.label) == ["a", "none"])
        try store.close()
        try fixture.expectSecondOpenWritesNothing(ObjectSchema(Item.self))
    }

    @Test func aRequiredMadeOptionalAcceptsNil() throws {
        struct Item: Model {
            var id: Int64?
            var name: String
            var count: Int?
            static let entity = ObjectEntity<Item>(table: "item")
        }
        let fixture = try seed("objects-migrate-optional")
        let store = try fixture.open(ObjectSchema(Item.self))
        try store.write { tx in try tx.insert(Item(id: nil, name: "three", count: nil)) }
        #expect(try store.fetch(Item.query().sorted(\.id)).map(\.count) == [1, 2, nil])
        try store.close()
    }

    /// A rebuilt AUTOINCREMENT table never hands out an id a deleted object had.
    @Test func aRebuildKeepsTheIdHighWaterMark() throws {
        struct Item: Model {
            var id: Int64?
            var name: String
            static let entity = ObjectEntity<Item>(table: "item")
        }
        let fixture = try seed("objects-migrate-sequence")
        try fixture.holder.write { db in try db.execute(sql: "DELETE FROM item WHERE id = 2") }
        let store = try fixture.open(ObjectSchema(Item.self))
        let inserted = try store.write { tx in try tx.insert(Item(id: nil, name: "three")) }
        #expect(inserted.id == 3)
        try store.close()
    }

    /// The id's type cannot be converted in place: other tables point at it.
    @Test func aRetypedIdIsRefusedUntouched() throws {
        struct Item: Model {
            var id: String
            var name: String
            static let entity = ObjectEntity<Item>(table: "item")
        }
        let fixture = try seed("objects-migrate-id")
        fixture.expectRefusal(ObjectSchema(Item.self), key: "Item.id")
    }
}
