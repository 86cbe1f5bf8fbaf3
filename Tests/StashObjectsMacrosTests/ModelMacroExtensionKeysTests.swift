import Foundation
import GRDB
import Stash
import StashObjectsMacros
import StashTestSupport
import Testing

/// A receipt whose keys rename its columns from an extension, as many apps write them; the
/// keys are `private`, so `init(row:)` must see them from its own expansion.
@Model
struct Receipt: Equatable {
    var id: Int64?
    var paidAt: Date
    var totalCents: Int
    var note: String?
    static let entity = ObjectEntity<Receipt>(table: "receipt").unique(\.paidAt)
}

extension Receipt {
    private enum CodingKeys: String, CodingKey {
        case id
        case paidAt = "paid_at"
        case totalCents = "total_cents"
        case note = "memo"
    }
}

/// `@Model` with `CodingKeys` outside the struct body, through a real store.
struct ModelMacroExtensionKeysTests {
    @Test func keysInAnExtensionNameTheColumnsAcrossACloseAndReopen() throws {
        #expect((Receipt.self as Any.Type) is any ColumnDecodable.Type)
        let folder = TemporaryFolder("objects-macro-keys")
        let url = folder.file("receipts.sqlite")
        var receipts = [
            Receipt(id: nil, paidAt: Date(timeIntervalSince1970: 1_700_000_000), totalCents: 1250, note: "lunch"),
            Receipt(id: nil, paidAt: Date(timeIntervalSince1970: 1_700_086_400), totalCents: 99, note: nil),
        ]
        do {
            let store = try ObjectStore(url: url, schema: ObjectSchema(Receipt.self))
            receipts = try store.write { try $0.insert(contentsOf: receipts) }
            try store.close()
        }
        // The columns carry the keys' strings, not the property names.
        let columns = try DatabaseQueue(path: url.path).read { db in try db.columns(in: "receipt").map(\.name) }
        #expect(Set(columns).isSuperset(of: ["id", "paid_at", "total_cents", "memo"]))
        #expect(!columns.contains("paidAt") && !columns.contains("note"))
        // Reopened: init(row:) reads them back under the same names.
        let store = try ObjectStore(url: url, schema: ObjectSchema(Receipt.self))
        #expect(try store.fetch(Receipt.query()).sorted { $0.id! < $1.id! } == receipts)
        #expect(try store.object(Receipt.self, id: receipts[0].id) == receipts[0])
        // Key paths reach the renamed columns: filters, sorts, aggregates, bulk updates, and
        // the unique index on `paidAt` (column `paid_at`).
        #expect(try store.fetch(Receipt.query().filter(\.totalCents == 99)) == [receipts[1]])
        #expect(try store.fetch(Receipt.query().filter(.isNil(\.note))) == [receipts[1]])
        #expect(try store.fetch(Receipt.query().sorted(\.paidAt, .descending)).map(\.id) == [receipts[1].id, receipts[0].id])
        #expect(try store.read { try $0.count(Receipt.query().filter(\.totalCents > 100)) } == 1)
        try store.write { tx in _ = try tx.updateAll(Receipt.query().filter(.isNil(\.note)), .set(\.note, "coffee")) }
        #expect(try store.object(Receipt.self, id: receipts[1].id)?.note == "coffee")
        #expect {
            try store.write { tx in _ = try tx.insert(Receipt(id: nil, paidAt: receipts[0].paidAt, totalCents: 1, note: nil)) }
        } throws: { error in
            (error as? StashError)?.code == .uniqueViolation
        }
    }
}
