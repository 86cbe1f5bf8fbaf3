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
}
