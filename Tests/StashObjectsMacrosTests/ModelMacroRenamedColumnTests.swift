import Foundation
import GRDB
import Stash
import StashObjectsMacros
import StashTestSupport
import Testing

/// A memo whose `init(from:)` is hand-written (it trims the title): the macro leaves it on
/// the `Codable` path, and its renamed column still has its key path.
@Model
struct Memo: Equatable {
    var id: Int64?
    var title: String
    var createdAt: Date
    enum CodingKeys: String, CodingKey {
        case id, title
        case createdAt = "created_at"
    }
    init(id: Int64?, title: String, createdAt: Date) {
        (self.id, self.title, self.createdAt) = (id, title, createdAt)
    }
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeIfPresent(Int64.self, forKey: .id)
        title = try container.decode(String.self, forKey: .title).trimmingCharacters(in: .whitespaces)
        createdAt = try container.decode(Date.self, forKey: .createdAt)
    }
    static let entity = ObjectEntity<Memo>(table: "memo").indexed(\.createdAt)
}

/// A log entry whose `init(row:)` is hand-written.
@Model
struct LogEntry: Equatable {
    var id: Int64?
    var loggedAt: Date
    enum CodingKeys: String, CodingKey {
        case id
        case loggedAt = "logged_at"
    }
    init(id: Int64?, loggedAt: Date) { (self.id, self.loggedAt) = (id, loggedAt) }
    init(row: ObjectRow) throws {
        id = try row.value("id")
        loggedAt = try row.value("logged_at")
    }
}

/// A ticket that says its columns itself: the macro writes `init(row:)` only.
@Model
struct Ticket: Equatable {
    var id: Int64?
    var dueAt: Date
    enum CodingKeys: String, CodingKey {
        case id
        case dueAt = "due_at"
    }
    static var columnNames: [PartialKeyPath<Ticket>: String] { [\.dueAt: "due_at"] }
}

/// A plain `Codable` model (no macro) that fills `columnNames` by hand, as `Model`'s doc says.
struct Invoice: Model, Equatable {
    var id: Int64?
    var issuedAt: Date
    enum CodingKeys: String, CodingKey {
        case id
        case issuedAt = "issued_at"
    }
    static var columnNames: [PartialKeyPath<Invoice>: String] { [\.issuedAt: CodingKeys.issuedAt.stringValue] }
}

/// Key paths to renamed columns through a real store, whatever writes the model's decoding.
struct ModelMacroRenamedColumnTests {
    static let dates = [3, 1, 2].map { Date(timeIntervalSince1970: 1_700_000_000 + Double($0) * 86_400) }

    @Test func keyPathsReachRenamedColumnsBesideHandWrittenInitializersAcrossAReopen() throws {
        #expect(Memo.columnNames[\Memo.createdAt] == "created_at")
        #expect(LogEntry.columnNames[\LogEntry.loggedAt] == "logged_at")
        #expect(!((Memo.self as Any.Type) is any ColumnDecodable.Type))
        let folder = TemporaryFolder("objects-macro-renamed")
        let url = folder.file("renamed.sqlite")
        let schema = ObjectSchema(Memo.self, LogEntry.self, Ticket.self, Invoice.self)
        do {
            let store = try ObjectStore(url: url, schema: schema)
            try store.write { tx in
                for (index, date) in Self.dates.enumerated() {
                    try tx.insert(Memo(id: nil, title: " memo \(index) ", createdAt: date))
                    try tx.insert(LogEntry(id: nil, loggedAt: date))
                    try tx.insert(Ticket(id: nil, dueAt: date))
                    try tx.insert(Invoice(id: nil, issuedAt: date))
                }
            }
            try store.close()
        }
        let store = try ObjectStore(url: url, schema: schema)
        let sorted = Self.dates.sorted()
        let middle = sorted[1]
        #expect(try store.fetch(Memo.query().sorted(\.createdAt)).map(\.createdAt) == sorted)
        #expect(try store.fetch(Memo.query().filter(\.createdAt > middle)).map(\.title) == ["memo 0"])
        #expect(try store.fetch(LogEntry.query().sorted(\.loggedAt)).map(\.loggedAt) == sorted)
        #expect(try store.fetch(LogEntry.query().filter(\.loggedAt < middle)).map(\.loggedAt) == [sorted[0]])
        #expect(try store.fetch(Ticket.query().sorted(\.dueAt)).map(\.dueAt) == sorted)
        #expect(try store.fetch(Invoice.query().sorted(\.issuedAt)).map(\.issuedAt) == sorted)
        // The columns are the renamed ones, and the index on a renamed key path is on its column.
        let (columns, indexed) = try DatabaseQueue(path: url.path).read { db in
            (try db.columns(in: "memo").map(\.name), try db.indexes(on: "memo").flatMap(\.columns))
        }
        #expect(columns.contains("created_at") && !columns.contains("createdAt"))
        #expect(indexed.contains("created_at"))
    }
}
