import Foundation
import GRDB
import Stash
import StashObjectsMacros
import StashTestSupport
import Testing

/// A value type that is `ExpressibleByNilLiteral` without being `Optional`.
struct Nickname: Codable, Equatable, ExpressibleByNilLiteral, Sendable {
    var text: String
    init(_ text: String) { self.text = text }
    init(nilLiteral: ()) { text = "" }
    init(from decoder: any Decoder) throws { text = try decoder.singleValueContainer().decode(String.self) }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}

/// Read through the `init(row:)` `@Model` writes.
@Model
struct Member: Equatable {
    var id: Int64?
    var nickname: Nickname
    static let entity = ObjectEntity<Member>(table: "member")
}

/// The same table through the `Codable` path.
struct PlainMember: Model, Equatable {
    var id: Int64?
    var nickname: Nickname
    static let entity = ObjectEntity<PlainMember>(table: "member")
}

/// The same table with an optional attribute.
@Model
struct OptionalMember: Equatable {
    var id: Int64?
    var nickname: Nickname?
    static let entity = ObjectEntity<OptionalMember>(table: "member")
}

/// NULL in a column: only an `Optional` attribute reads it as `nil`, on both read paths.
struct ModelMacroNullTests {
    @Test func nullIsNilOnlyForAnOptionalOnBothPaths() throws {
        let folder = TemporaryFolder("objects-macro-null")
        let url = folder.file("members.sqlite")
        // Another program made the table with a nullable column and left a NULL in it.
        try DatabaseQueue(path: url.path).write { db in
            try db.execute(sql: "CREATE TABLE member (id INTEGER PRIMARY KEY AUTOINCREMENT, nickname TEXT)")
            try db.execute(sql: "INSERT INTO member (nickname) VALUES ('Ada'), (NULL)")
        }
        let store = try ObjectStore(url: url, schema: ObjectSchema(Member.self, PlainMember.self, OptionalMember.self))
        #expect((Member.self as Any.Type) is any ColumnDecodable.Type)
        #expect(!((PlainMember.self as Any.Type) is any ColumnDecodable.Type))
        #expect(try store.object(Member.self, id: 1) == Member(id: 1, nickname: Nickname("Ada")))
        #expect(try store.object(PlainMember.self, id: 1) == PlainMember(id: 1, nickname: Nickname("Ada")))
        #expect {
            try store.object(Member.self, id: 2)
        } throws: { error in
            let error = try #require(error as? StashError)
            return error.code == .typeMismatch && error.key == "Member.nickname" && error.reason.contains("NULL")
        }
        #expect {
            try store.object(PlainMember.self, id: 2)
        } throws: { error in
            (error as? StashError)?.code == .typeMismatch
        }
        #expect(try store.object(OptionalMember.self, id: 2) == OptionalMember(id: 2, nickname: nil))
        #expect(try store.object(OptionalMember.self, id: 1) == OptionalMember(id: 1, nickname: Nickname("Ada")))
    }
}
