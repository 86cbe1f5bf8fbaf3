import Foundation
import StashCore
import StashObjects
import StashTestSupport
import Testing

/// A receipt whose non-optional buyer key declares `nullify`: it can never be set to `nil`.
private struct Receipt: Model, Equatable {
    var id: Int64?
    var total: Int
    var buyerID: Int64
    static let entity = ObjectEntity<Receipt>().belongsTo(\.buyerID, Person.self, onDelete: .nullify)
}

/// A ticket with a non-optional key and no declared rule: the default for it is `deny`.
private struct Ticket: Model, Equatable {
    var id: Int64?
    var seat: String
    var holderID: Int64
    static let entity = ObjectEntity<Ticket>().belongsTo(\.holderID, Person.self)
}

/// A badge with an optional key and no declared rule: the default for it is `nullify`.
private struct Badge: Model, Equatable {
    var id: Int64?
    var label: String
    var wearerID: Int64?
    static let entity = ObjectEntity<Badge>().belongsTo(\.wearerID, Person.self)
}

/// Delete rules are settled when the store opens: `nullify` needs an optional key (SQLite
/// would accept the table and fail at the first delete with a NOT NULL error).
struct DeleteRuleValidationTests {
    let folder = TemporaryFolder("objects-delete-rules")

    @Test func nullifyOnANonOptionalKeyIsRefusedAtOpenBeforeAnythingIsWritten() throws {
        // A fresh file is not created.
        var caught: StashError?
        do { _ = try folder.objectStore(ObjectSchema(Person.self, Receipt.self)) } catch let error as StashError { caught = error }
        #expect(caught?.code == .invalidSchema)
        #expect(caught?.key == "Receipt.buyerID")
        #expect(caught?.reason.contains("nullify") == true)
        #expect(!FileManager.default.fileExists(atPath: folder.file("objects.sqlite").path))

        // An existing file is left byte for byte as it was.
        let store = try folder.objectStore(ObjectSchema(Person.self))
        try store.write { tx in try tx.insert(Person(id: nil, name: "Ada", age: 36, nickname: nil)) }
        try store.close()
        let before = try Data(contentsOf: folder.file("objects.sqlite"))
        caught = nil
        do { _ = try folder.objectStore(ObjectSchema(version: 2, Person.self, Receipt.self)) } catch let error as StashError { caught = error }
        #expect(caught?.code == .invalidSchema)
        #expect(try Data(contentsOf: folder.file("objects.sqlite")) == before)
    }

    @Test func theDefaultRuleIsDenyOnANonOptionalKeyAndNullifyOnAnOptionalOne() throws {
        let store = try folder.objectStore(ObjectSchema(Person.self, Ticket.self, Badge.self))
        defer { try? store.close() }
        let ada = try store.write { tx in try tx.insert(Person(id: nil, name: "Ada", age: 36, nickname: nil)) }
        try store.write { tx in
            try tx.insert(Ticket(id: nil, seat: "12A", holderID: ada.id!))
            try tx.insert(Badge(id: nil, label: "speaker", wearerID: ada.id!))
        }
        #expect(errorCode { try store.write { tx in try tx.delete(ada) } } == .deleteDenied)
        #expect(try store.object(Person.self, id: ada.id!) != nil)
        try store.write { tx in
            try tx.deleteAll(Ticket.query())
            try tx.delete(ada)
        }
        #expect(try store.fetch(Badge.query()).map(\.wearerID) == [nil])
    }
}
