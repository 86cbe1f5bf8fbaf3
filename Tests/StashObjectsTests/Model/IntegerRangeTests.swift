import Foundation
import GRDB
import StashCore
import StashObjects
import StashTestSupport
import Testing

/// Integer attributes narrower than the stored `Int64`, read through `Codable`.
struct Narrow: Model, Equatable {
    var id: Int64?
    var small: Int32
    var byte: UInt8
    var count: Int
    var spare: Int?
    static let entity = ObjectEntity<Narrow>(table: "narrow")
}

/// The same table read through `ColumnDecodable` (the path `@Model` writes).
struct NarrowRow: Model, ColumnDecodable, Equatable {
    var id: Int64?
    var small: Int32
    var byte: UInt8
    var count: Int
    var spare: Int?
    static let entity = ObjectEntity<NarrowRow>(table: "narrow")

    init(id: Int64?, small: Int32, byte: UInt8, count: Int, spare: Int?) {
        (self.id, self.small, self.byte, self.count, self.spare) = (id, small, byte, count, spare)
    }

    init(row: ObjectRow) throws {
        id = try row.value("id")
        small = try row.value("small")
        byte = try row.value("byte")
        count = try row.value("count")
        spare = try row.value("spare")
    }
}

/// A model with 64-bit unsigned attributes.
struct Unsigned: Model, Equatable {
    var id: Int64?
    var size: UInt64
    var count: UInt
    static let entity = ObjectEntity<Unsigned>(table: "unsigned")
}

/// A stored integer out of an attribute's range (another program wrote it, or a 64-bit
/// device wrote an `Int` a 32-bit watch reads) is a `typeMismatch` naming the attribute on
/// both read paths, never a trap: every conversion from the stored `Int64` is checked.
struct IntegerRangeTests {
    let folder = TemporaryFolder("objects-integer-range")

    func mismatchKey(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let error as StashError {
            return error.code == .typeMismatch ? error.key : "\(error.code): \(error.reason)"
        } catch {
            return "\(error)"
        }
    }

    @Test(arguments: [
        ("small", Int64(1) << 40), ("small", Int64(Int32.min) - 1), ("byte", 256), ("byte", -1),
    ])
    func outOfRangeValuesAreTypeMismatches(column: String, stored: Int64) throws {
        let store = try folder.objectStore(ObjectSchema(Narrow.self, NarrowRow.self))
        defer { try? store.close() }
        let saved = try store.write { tx in try tx.insert(Narrow(id: nil, small: 7, byte: 200, count: 3, spare: nil)) }
        let raw = try folder.rawDatabase()
        try raw.write { db in try db.execute(sql: "UPDATE narrow SET \(column) = ?", arguments: [stored]) }
        try raw.close()
        #expect(mismatchKey { _ = try store.fetch(Narrow.query()) } == "Narrow.\(column)")
        #expect(mismatchKey { _ = try store.fetch(NarrowRow.query()) } == "NarrowRow.\(column)")
        #expect(mismatchKey { _ = try store.object(Narrow.self, id: saved.id!) } == "Narrow.\(column)")
    }

    /// `Int` holds any stored integer on a 64-bit platform; on a 32-bit one, a value beyond
    /// `Int32` is a type mismatch (it was a trap: `Int(_: Int64)`).
    @Test func intAttributesReadEveryValueTheirPlatformHolds() throws {
        let store = try folder.objectStore(ObjectSchema(Narrow.self, NarrowRow.self))
        defer { try? store.close() }
        try store.write { tx in try tx.insert(Narrow(id: nil, small: 1, byte: 2, count: 3, spare: 4)) }
        let raw = try folder.rawDatabase()
        try raw.write { db in try db.execute(sql: "UPDATE narrow SET count = ?, spare = ?", arguments: [Int64.max, Int64.min]) }
        try raw.close()
        #if _pointerBitWidth(_64)
        #expect(try store.fetch(Narrow.query()).map(\.count) == [Int.max])
        #expect(try store.fetch(NarrowRow.query()).map(\.spare) == [Int.min])
        #else
        #expect(mismatchKey { _ = try store.fetch(Narrow.query()) } == "Narrow.count")
        #expect(mismatchKey { _ = try store.fetch(NarrowRow.query()) } == "NarrowRow.count")
        #endif
        #expect(Int32(storedValue: .integer(1 << 40)) == nil)
        #expect(UInt8(storedValue: .integer(-1)) == nil)
    }

    /// `UInt64` / `UInt` values above `Int64.max` are refused when written (they were stored
    /// as negative bit patterns, which filters and sorts ordered below every other value);
    /// a stored negative is a type mismatch; a filter with a larger value compares as the
    /// number it is.
    @Test func unsignedValuesAboveInt64MaxAreRefusedNotStoredNegative() throws {
        let store = try folder.objectStore(ObjectSchema(Unsigned.self))
        defer { try? store.close() }
        let big = UInt64(Int64.max)
        try store.write { tx in
            try tx.insert(Unsigned(id: 1, size: big, count: 1))
            try tx.insert(Unsigned(id: 2, size: 5, count: UInt(Int64.max)))
        }
        for refused in [Unsigned(id: 3, size: big + 1, count: 0), Unsigned(id: 3, size: 0, count: UInt(Int64.max) + 1)] {
            var caught: StashError?
            do { try store.write { tx in try tx.insert(refused) } } catch let error as StashError { caught = error }
            #expect(caught?.code == .unsupportedValue)
            #expect(caught?.key == (refused.size > big ? "Unsigned.size" : "Unsigned.count"))
        }
        #expect(try store.count(Unsigned.query()) == 2)
        #expect(try store.fetch(Unsigned.query().sorted(\.size)).map(\.id) == [2, 1])
        #expect(try store.count(Unsigned.query().filter(\.size > 4)) == 2)
        #expect(try store.count(Unsigned.query().filter(\.size < UInt64.max)) == 2)
        #expect(try store.count(Unsigned.query().filter(\.size >= UInt64.max)) == 0)
        let raw = try folder.rawDatabase()
        try raw.write { db in try db.execute(sql: "UPDATE unsigned SET size = -1 WHERE id = 2") }
        try raw.close()
        #expect(mismatchKey { _ = try store.fetch(Unsigned.query()) } == "Unsigned.size")
        #expect(UInt64(storedValue: .integer(-1)) == nil)
    }
}
