import Foundation
import GRDB
import Stash
import StashObjectsMacros
import StashTestSupport
import Testing

/// Where a book stands; a raw-value enum column.
enum Shelf: String, Codable, Storable, CaseIterable {
    case top, middle, bottom
}

/// A nested `Codable` value: stored as JSON.
struct Binding: Codable, Equatable, Sendable {
    var kind: String
    var sewn: Bool
}

@Model
struct Author: Equatable {
    var id: Int64?
    var name: String
    static let entity = ObjectEntity<Author>(table: "author").unique(\.name)
}

/// Every kind of attribute `@Model` reads, a renamed column, an excluded property and a
/// to-one relationship.
@Model
struct Book: Equatable {
    var id: UUID
    var title: String
    var subtitle: String?
    var shelf: Shelf
    var formerShelf: Shelf?
    var binding: Binding
    var extra: Binding?
    var publishedAt: Date
    var pages: Int32
    var price: Double
    var inPrint: Bool
    var authorID: Int64?
    /// Not stored: left out of CodingKeys.
    var isOpen = false
    var shout: String { title.uppercased() }

    enum CodingKeys: String, CodingKey {
        case id, title, subtitle, shelf, formerShelf, binding, extra
        case publishedAt = "published_at"
        case pages, price, inPrint, authorID
    }

    static let entity = ObjectEntity<Book>(table: "book").belongsTo(\.authorID, Author.self, onDelete: .nullify)
}

/// A tag linked to books many-to-many, also written with the macro.
@Model
struct Label: Equatable {
    var id: String
    var color: String?
    static let entity = ObjectEntity<Label>(table: "label").manyToMany(Book.self)
}

/// A plain `Codable` model beside the macro ones: `Model` the protocol and `@Model` the
/// macro resolve in the same file of an app that imports `Stash` and `StashObjectsMacros`.
struct Shelfmark: Model, Equatable {
    var id: Int64?
    var code: String
}

/// `@Model` models through a real store: what they write reads back through the `init(row:)`
/// the macro wrote, with the typed errors of the `Codable` path.
struct ModelMacroStoreTests {
    static func book(_ number: Int, author: Int64?, full: Bool) -> Book {
        Book(
            id: UUID(), title: "Book \(number)", subtitle: full ? "A subtitle ✓" : nil,
            shelf: Shelf.allCases[number % 3], formerShelf: full ? .bottom : nil,
            binding: Binding(kind: "cloth", sewn: number.isMultiple(of: 2)), extra: full ? Binding(kind: "paper", sewn: false) : nil,
            publishedAt: Date(timeIntervalSince1970: Double(1_600_000_000 + number)), pages: Int32(100 + number),
            price: 9.5 + Double(number), inPrint: full, authorID: author
        )
    }

    @Test func theMacroWritesTheColumnDecodableConformance() {
        #expect((Book.self as Any.Type) is any ColumnDecodable.Type)
        #expect((Author.self as Any.Type) is any ColumnDecodable.Type)
        #expect(!((Shelfmark.self as Any.Type) is any ColumnDecodable.Type))
    }

    @Test func macroModelsRoundTripThroughAStore() throws {
        let folder = TemporaryFolder("objects-macro")
        let url = folder.file("books.sqlite")
        var books: [Book] = []
        var ada = Author(id: nil, name: "Ada")
        do {
            let store = try ObjectStore(url: url, schema: ObjectSchema(Author.self, Book.self, Label.self, Shelfmark.self))
            try store.write { tx in
                ada = try tx.insert(ada)
                books = (0..<12).map { Self.book($0, author: $0 < 6 ? ada.id : nil, full: $0.isMultiple(of: 2)) }
                books[1].isOpen = true
                try tx.insert(contentsOf: books)
                try tx.insert(Label(id: "classic", color: nil))
                try tx.link(Label(id: "classic", color: nil), books[0])
                try tx.insert(Shelfmark(id: nil, code: "A1"))
            }
            try store.close()
        }
        // Reopened: everything reads back through init(row:), the excluded property at its default.
        let store = try ObjectStore(url: url, schema: ObjectSchema(Author.self, Book.self, Label.self, Shelfmark.self))
        books[1].isOpen = false
        let read = try store.fetch(Book.query())
        #expect(Set(read.map(\.id)) == Set(books.map(\.id)))
        for book in books { #expect(read.first { $0.id == book.id } == book) }
        #expect(try store.object(Book.self, id: books[4].id) == books[4])
        // The renamed attribute is stored under its key's name.
        let published = try DatabaseQueue(path: url.path).read { db in
            try Double.fetchOne(db, sql: "SELECT published_at FROM book WHERE id = ?", arguments: [books[3].id.uuidString])
        }
        #expect(published == books[3].publishedAt.timeIntervalSince1970)
        // Queries, relationships, prefetch and many-to-many see the same objects.
        #expect(try store.fetch(Book.query().filter(\.shelf == .middle)).count == books.filter { $0.shelf == .middle }.count)
        let byAda = try store.read { try $0.related(Book.self, of: ada) }
        #expect(Set(byAda.map(\.id)) == Set(books.prefix(6).map(\.id)))
        let prefetched = try store.read { try $0.fetch(Author.query(), including: Book.self) }
        #expect(prefetched.map(\.object) == [ada] && prefetched[0].related.count == 6)
        #expect(try store.read { try $0.related(Label.self, of: books[0]) } == [Label(id: "classic", color: nil)])
        #expect(try store.fetch(Shelfmark.query()) == [Shelfmark(id: 1, code: "A1")])
        // nullify: deleting the author clears the books' foreign key.
        try store.write { tx in _ = try tx.delete(ada) }
        #expect(try store.fetch(Book.query()).allSatisfy { $0.authorID == nil })
    }

    @Test func aStoredValueThatDoesNotFitIsATypedErrorNamingModelAndAttribute() throws {
        let folder = TemporaryFolder("objects-macro-errors")
        let url = folder.file("books.sqlite")
        let book = Self.book(1, author: nil, full: true)
        let store = try ObjectStore(url: url, schema: ObjectSchema(Author.self, Book.self, Label.self))
        try store.write { tx in _ = try tx.insert(book) }
        // Another program writes text where an integer belongs, then JSON that no longer decodes.
        let other = try DatabaseQueue(path: url.path)
        try other.write { db in try db.execute(sql: "UPDATE book SET pages = 'many'") }
        #expect {
            try store.fetch(Book.query())
        } throws: { error in
            let error = try #require(error as? StashError)
            return error.code == .typeMismatch && error.key == "Book.pages" && error.reason.contains("'many'")
        }
        try other.write { db in try db.execute(sql: "UPDATE book SET pages = 3, binding = '{\"kind\": 1}'") }
        #expect {
            try store.object(Book.self, id: book.id)
        } throws: { error in
            (error as? StashError)?.code == .typeMismatch && (error as? StashError)?.key == "Book.binding"
        }
        try other.write { db in try db.execute(sql: "UPDATE book SET binding = '{\"kind\": \"x\", \"sewn\": true}', shelf = 'floor'") }
        #expect {
            try store.fetch(Book.query())
        } throws: { error in
            (error as? StashError)?.code == .typeMismatch && (error as? StashError)?.key == "Book.shelf"
        }
    }
}
