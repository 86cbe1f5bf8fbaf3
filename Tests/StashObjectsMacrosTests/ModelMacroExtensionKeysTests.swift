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
    static let entity = ObjectEntity<Receipt>(table: "receipt")
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
    }
}
