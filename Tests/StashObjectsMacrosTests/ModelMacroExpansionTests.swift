import StashObjectsMacroExpansion
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacros
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// What `@Model` writes, and what it refuses, checked on the expansion itself.
struct ModelMacroExpansionTests {
    private static let bothConformances = ["StashObjects.Model", "StashObjects.ColumnDecodable"]

    /// What `@Model` adds to a `struct Tag` whose one column is `id`.
    private static let tagReadingItsIDOnly = """
        extension Tag: StashObjects.Model, StashObjects.ColumnDecodable {
            init(row: StashObjects.ObjectRow) throws {
                self.id = try row.value(CodingKeys.id.stringValue)
            }
            static var columnNames: [PartialKeyPath<Self>: String] {
                [\\.id: CodingKeys.id.stringValue]
            }
        }
        """

    /// Expands `attribute` + `declaration` and expects the declaration followed by `added`
    /// (nothing added when `nil`), with `diagnostics` (lines count from the attribute's).
    private func expect(
        _ declaration: String, attribute: String = "@Model\n", adds added: String?, diagnostics: [DiagnosticSpec] = [],
        conformances: [TypeSyntax] = bothConformances.map { TypeSyntax(stringLiteral: $0) },
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        let specs = ["Model": MacroSpec(type: ModelMacro.self, conformances: conformances)]
        let expanded = added.map { declaration + "\n\n" + $0 } ?? declaration
        assertMacroExpansion(attribute + declaration, expandedSource: expanded, diagnostics: diagnostics, macroSpecs: specs, indentationWidth: .spaces(4)) { failure in
            Issue.record(Comment(rawValue: failure.message), sourceLocation: sourceLocation)
        }
    }

    @Test func readsEveryStoredPropertyInDeclarationOrder() {
        expect(
            """
            struct Person {
                var id: Int64?
                var name: String
                let born: Date
                var nickname: String? = nil
                var mood: Mood { didSet { print(mood) } }
                static let entity = ObjectEntity<Person>(table: "person")
                let kind = "person"
                var initials: String { String(name.prefix(1)) }
                var upper: String { get { name.uppercased() } set { name = newValue } }
                var `default`: Int
            }
            """,
            adds: """
            extension Person: StashObjects.Model, StashObjects.ColumnDecodable {
                init(row: StashObjects.ObjectRow) throws {
                    self.id = try row.value(CodingKeys.id.stringValue)
                    self.name = try row.value(CodingKeys.name.stringValue)
                    self.born = try row.value(CodingKeys.born.stringValue)
                    self.nickname = try row.value(CodingKeys.nickname.stringValue)
                    self.mood = try row.value(CodingKeys.mood.stringValue)
                    self.`default` = try row.value(CodingKeys.`default`.stringValue)
                }
                static var columnNames: [PartialKeyPath<Self>: String] {
                    [\\.id: CodingKeys.id.stringValue, \\.name: CodingKeys.name.stringValue, \\.born: CodingKeys.born.stringValue, \\.nickname: CodingKeys.nickname.stringValue, \\.mood: CodingKeys.mood.stringValue, \\.`default`: CodingKeys.`default`.stringValue]
                }
            }
            """
        )
    }

    @Test func codingKeysChooseAndRenameTheColumns() {
        expect(
            """
            public struct Note {
                public var id: UUID
                public var createdAt: Date
                public var body: String
                public var cache: [String: Int] = [:]
                enum CodingKeys: String, CodingKey {
                    case body, id
                    case createdAt = "created_at"
                }
            }
            """,
            adds: """
            extension Note: StashObjects.Model, StashObjects.ColumnDecodable {
                public init(row: StashObjects.ObjectRow) throws {
                    self.body = try row.value(CodingKeys.body.stringValue)
                    self.id = try row.value(CodingKeys.id.stringValue)
                    self.createdAt = try row.value(CodingKeys.createdAt.stringValue)
                }
                public static var columnNames: [PartialKeyPath<Self>: String] {
                    [\\.body: CodingKeys.body.stringValue, \\.id: CodingKeys.id.stringValue, \\.createdAt: CodingKeys.createdAt.stringValue]
                }
            }
            """
        )
    }

    @Test func aDeclaredModelConformanceIsNotRepeated() {
        expect(
            """
            struct Tag: Model {
                var id: String
            }
            """,
            adds: """
            extension Tag: StashObjects.ColumnDecodable {
                init(row: StashObjects.ObjectRow) throws {
                    self.id = try row.value(CodingKeys.id.stringValue)
                }
                static var columnNames: [PartialKeyPath<Self>: String] {
                    [\\.id: CodingKeys.id.stringValue]
                }
            }
            """,
            conformances: ["StashObjects.ColumnDecodable"]
        )
    }

    @Test func aHandWrittenInitRowIsKept() {
        expect(
            """
            struct Tag {
                var id: String
                init(row: ObjectRow) throws { id = try row.value("id") }
            }
            """,
            adds: """
            extension Tag: StashObjects.Model, StashObjects.ColumnDecodable {
            }
            """
        )
    }

    /// Beside a hand-written `init(row:)` the macro still gives renamed properties' key paths
    /// their columns, from the `CodingKeys` of the body (a key left out is no column).
    @Test func aHandWrittenInitRowStillGetsColumnNames() {
        expect(
            """
            struct Note {
                var id: String
                var createdAt: Date
                var draft = false
                enum CodingKeys: String, CodingKey {
                    case id
                    case createdAt = "created_at"
                }
                init(row: ObjectRow) throws { id = try row.value("id"); createdAt = try row.value("created_at") }
            }
            """,
            adds: """
            extension Note: StashObjects.Model, StashObjects.ColumnDecodable {
                static var columnNames: [PartialKeyPath<Self>: String] {
                    [\\.id: CodingKeys.id.stringValue, \\.createdAt: CodingKeys.createdAt.stringValue]
                }
            }
            """
        )
    }

    /// A hand-written `init(from:)` with `CodingKeys` in the body: no `init(row:)`, but
    /// `columnNames` (the requirement is `Model`'s).
    @Test func aHandWrittenInitFromStillGetsColumnNames() {
        expect(
            """
            public struct Note {
                public var id: String
                public var createdAt: Date
                enum CodingKeys: String, CodingKey {
                    case id
                    case createdAt = "created_at"
                }
                public init(from decoder: any Decoder) throws {
                    let container = try decoder.container(keyedBy: CodingKeys.self)
                    id = try container.decode(String.self, forKey: .id)
                    createdAt = try container.decode(Date.self, forKey: .createdAt)
                }
            }
            """,
            adds: """
            extension Note: StashObjects.Model {
                public static var columnNames: [PartialKeyPath<Self>: String] {
                    [\\.id: CodingKeys.id.stringValue, \\.createdAt: CodingKeys.createdAt.stringValue]
                }
            }
            """
        )
    }

    /// A struct's own `columnNames` is kept, not declared a second time.
    @Test func aDeclaredColumnNamesIsKept() {
        expect(
            """
            struct Note {
                var id: String
                var createdAt: Date
                enum CodingKeys: String, CodingKey {
                    case id
                    case createdAt = "created_at"
                }
                static var columnNames: [PartialKeyPath<Note>: String] { [\\.createdAt: "created_at"] }
            }
            """,
            adds: """
            extension Note: StashObjects.Model, StashObjects.ColumnDecodable {
                init(row: StashObjects.ObjectRow) throws {
                    self.id = try row.value(CodingKeys.id.stringValue)
                    self.createdAt = try row.value(CodingKeys.createdAt.stringValue)
                }
            }
            """
        )
    }

    /// A hand-written `init(from:)` decides what each column becomes: an `init(row:)` reading
    /// the columns directly would bypass it, so the model stays on the `Codable` path.
    @Test func aHandWrittenInitFromKeepsTheCodablePath() {
        expect(
            """
            struct Tag {
                var id: String
                var name: String
                init(from decoder: any Decoder) throws {
                    let container = try decoder.container(keyedBy: CodingKeys.self)
                    id = try container.decode(String.self, forKey: .id)
                    name = try container.decode(String.self, forKey: .name).trimmingCharacters(in: .whitespaces)
                }
            }
            """,
            adds: """
            extension Tag: StashObjects.Model {
            }
            """
        )
    }

    /// A `let` with a value is not decoded even when `CodingKeys` names it; whatever the raw
    /// values, each column is its key's `stringValue`.
    @Test func codingKeysFollowWhatCodableDecodes() {
        expect(
            """
            struct Event {
                var id: Int64?
                let kind = "event"
                var createdAt: Date
                var count: Int
                enum CodingKeys: String, CodingKey {
                    case id, kind
                    case createdAt = "created\u{5F}at"
                }
            }
            """,
            adds: """
            extension Event: StashObjects.Model, StashObjects.ColumnDecodable {
                init(row: StashObjects.ObjectRow) throws {
                    self.id = try row.value(CodingKeys.id.stringValue)
                    self.createdAt = try row.value(CodingKeys.createdAt.stringValue)
                }
                static var columnNames: [PartialKeyPath<Self>: String] {
                    [\\.id: CodingKeys.id.stringValue, \\.createdAt: CodingKeys.createdAt.stringValue]
                }
            }
            """
        )
        expect(
            """
            struct Counter {
                var id: Int64?
                var total: Int
                enum CodingKeys: Int, CodingKey {
                    case id = 1
                    case total = 2
                }
            }
            """,
            adds: """
            extension Counter: StashObjects.Model, StashObjects.ColumnDecodable {
                init(row: StashObjects.ObjectRow) throws {
                    self.id = try row.value(CodingKeys.id.stringValue)
                    self.total = try row.value(CodingKeys.total.stringValue)
                }
                static var columnNames: [PartialKeyPath<Self>: String] {
                    [\\.id: CodingKeys.id.stringValue, \\.total: CodingKeys.total.stringValue]
                }
            }
            """
        )
    }

    @Test func refusesWhatIsNotAStruct() {
        for (keyword, kind) in [("class", "a class"), ("enum", "an enum"), ("actor", "an actor")] {
            expect(
                "\(keyword) Thing { }", attribute: "@Model ", adds: nil,
                diagnostics: [DiagnosticSpec(message: "@Model applies to a struct, not to \(kind): StashObjects models are value types", line: 1, column: 1)]
            )
        }
    }

    @Test func refusesAModelWithoutID() {
        expect(
            """
            struct Tag {
                var label: String
            }
            """,
            adds: nil,
            diagnostics: [DiagnosticSpec(message: "@Model struct Tag needs a stored 'id' property (Int64? or Int? for an auto-incremented key, or a UUID or String)", line: 2, column: 8)]
        )
    }

    @Test func refusesCodingKeysThatNameNoStoredProperty() {
        expect(
            """
            struct Tag {
                var id: String
                var label: String
                var upper: String { label.uppercased() }
                enum CodingKeys: String, CodingKey {
                    case id, lable, upper
                }
            }
            """,
            adds: nil,
            diagnostics: [
                DiagnosticSpec(message: "CodingKeys.lable names no stored property of Tag", line: 7, column: 18),
                DiagnosticSpec(message: "Tag.upper is a computed property, so it has no column; leave it out of CodingKeys", line: 7, column: 25),
            ]
        )
    }

    @Test func refusesLazyAndWrappedAttributes() {
        expect(
            """
            struct Tag {
                var id: String
                lazy var count: Int = 0
                @Clamped var level: Int
            }
            """,
            adds: nil,
            diagnostics: [
                DiagnosticSpec(message: "Tag.count is lazy and cannot be a column; make it a plain stored property or leave it out of CodingKeys", line: 4, column: 14),
                DiagnosticSpec(message: "Tag.level has the attribute @Clamped, which @Model takes for a property wrapper it cannot read into; store the value itself or leave it out of CodingKeys", line: 5, column: 18),
            ]
        )
    }

    /// `CodingKeys` in an extension are out of the macro's sight: it names every stored
    /// property through `CodingKeys`, so the extension's keys decide the columns.
    @Test func keysDeclaredInAnExtensionAreReadThroughCodingKeys() {
        expect(
            """
            struct Note {
                var id: UUID
                var createdAt: Date
            }
            """,
            adds: """
            extension Note: StashObjects.Model, StashObjects.ColumnDecodable {
                init(row: StashObjects.ObjectRow) throws {
                    self.id = try row.value(CodingKeys.id.stringValue)
                    self.createdAt = try row.value(CodingKeys.createdAt.stringValue)
                }
                static var columnNames: [PartialKeyPath<Self>: String] {
                    [\\.id: CodingKeys.id.stringValue, \\.createdAt: CodingKeys.createdAt.stringValue]
                }
            }
            """
        )
    }

    /// The `Codable` path decodes a stored property inside an active `#if`; the macro cannot
    /// tell which clause is active, so it refuses (nested blocks too), and leaves `static`,
    /// computed and `let`-with-a-value properties there alone.
    @Test func refusesStoredPropertiesInsideIf() {
        expect(
            """
            struct Tag {
                var id: String
                #if os(Linux)
                var path: String
                static var count = 0
                var upper: String { path.uppercased() }
                let kind = "tag"
                #elseif DEBUG
                #if canImport(Darwin)
                var trace: [String] = []
                #endif
                #endif
            }
            """,
            adds: nil,
            diagnostics: [
                DiagnosticSpec(message: "@Model cannot see Tag.path inside #if; declare the stored property outside the #if block, or write init(row:) yourself", line: 5, column: 9),
                DiagnosticSpec(message: "@Model cannot see Tag.trace inside #if; declare the stored property outside the #if block, or write init(row:) yourself", line: 11, column: 9),
            ]
        )
        // With the body's own CodingKeys, a property inside #if that no key names is no
        // column (the Codable path never reads it); one a key names is refused.
        expect(
            """
            struct Tag {
                var id: String
                #if DEBUG
                var trace = ""
                #else
                var label = ""
                #endif
                enum CodingKeys: String, CodingKey {
                    case id
                }
            }
            """,
            adds: Self.tagReadingItsIDOnly
        )
        expect(
            """
            struct Tag {
                var id: String
                #if DEBUG
                var trace = ""
                #endif
                enum CodingKeys: String, CodingKey {
                    case id, trace
                }
            }
            """,
            adds: nil,
            diagnostics: [
                DiagnosticSpec(message: "@Model cannot see Tag.trace inside #if; declare the stored property outside the #if block, or write init(row:) yourself", line: 5, column: 9),
            ]
        )
        // A tuple pattern inside #if is refused as a tuple pattern, as outside.
        expect(
            """
            struct Tag {
                var id: String
                #if DEBUG
                var (a, b): (Int, Int)
                #endif
            }
            """,
            adds: nil,
            diagnostics: [
                DiagnosticSpec(message: "@Model cannot read a tuple-pattern property of Tag; declare one property per variable", line: 5, column: 9),
            ]
        )
        // Computed and static members inside #if need no column.
        expect(
            """
            struct Tag {
                var id: String
                #if DEBUG
                var debugName: String { id }
                static let sample = Tag(id: "x")
                #endif
            }
            """,
            adds: Self.tagReadingItsIDOnly
        )
    }

    /// Built-in attributes and a global actor are not property wrappers: the property is a
    /// column as usual.
    @Test func attributesThatAreNotWrappersAreColumns() {
        expect(
            """
            struct Tag {
                var id: String
                @MainActor var a: Int
                @available(*, deprecated) var b: Int
                @objc var c: Int
                @preconcurrency var d: Int
                @usableFromInline var e: Int
                @inlinable var f: Int
                @discardableResult var g: Int
                @nonisolated var h: Int
            }
            """,
            adds: """
            extension Tag: StashObjects.Model, StashObjects.ColumnDecodable {
                init(row: StashObjects.ObjectRow) throws {
                    self.id = try row.value(CodingKeys.id.stringValue)
                    self.a = try row.value(CodingKeys.a.stringValue)
                    self.b = try row.value(CodingKeys.b.stringValue)
                    self.c = try row.value(CodingKeys.c.stringValue)
                    self.d = try row.value(CodingKeys.d.stringValue)
                    self.e = try row.value(CodingKeys.e.stringValue)
                    self.f = try row.value(CodingKeys.f.stringValue)
                    self.g = try row.value(CodingKeys.g.stringValue)
                    self.h = try row.value(CodingKeys.h.stringValue)
                }
                static var columnNames: [PartialKeyPath<Self>: String] {
                    [\\.id: CodingKeys.id.stringValue, \\.a: CodingKeys.a.stringValue, \\.b: CodingKeys.b.stringValue, \\.c: CodingKeys.c.stringValue, \\.d: CodingKeys.d.stringValue, \\.e: CodingKeys.e.stringValue, \\.f: CodingKeys.f.stringValue, \\.g: CodingKeys.g.stringValue, \\.h: CodingKeys.h.stringValue]
                }
            }
            """
        )
    }

    /// `let (a, b) = (1, 2)` has its values, so `Codable` does not decode it and neither does
    /// the macro; a tuple the decoder would have to fill is refused.
    @Test func aTupleLetWithItsValueIsSkippedAndOtherTuplesRefused() {
        expect(
            """
            struct Tag {
                var id: String
                let (low, high) = (1, 9)
            }
            """,
            adds: Self.tagReadingItsIDOnly
        )
        expect(
            """
            struct Tag {
                var id: String
                var (low, high): (Int, Int)
            }
            """,
            adds: nil,
            diagnostics: [DiagnosticSpec(message: "@Model cannot read a tuple-pattern property of Tag; declare one property per variable", line: 4, column: 9)]
        )
    }

    /// A computed `id` has no column to identify the row by.
    @Test func aComputedIDIsNoID() {
        expect(
            """
            struct Tag {
                var label: String
                var id: String { label }
            }
            """,
            adds: nil,
            diagnostics: [DiagnosticSpec(message: "@Model struct Tag needs a stored 'id' property (Int64? or Int? for an auto-incremented key, or a UUID or String)", line: 2, column: 8)]
        )
    }
}
