import StashObjectsMacroPlugin
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacros
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// What `@Model` writes, and what it refuses, checked on the expansion itself.
struct ModelMacroExpansionTests {
    private static let bothConformances = ["StashObjects.Model", "StashObjects.ColumnDecodable"]

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
                    self.id = try row.value("id")
                    self.name = try row.value("name")
                    self.born = try row.value("born")
                    self.nickname = try row.value("nickname")
                    self.mood = try row.value("mood")
                    self.`default` = try row.value("default")
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
                    self.body = try row.value("body")
                    self.id = try row.value("id")
                    self.createdAt = try row.value("created_at")
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
                    self.id = try row.value("id")
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

    /// A `let` with a value is not decoded even when `CodingKeys` names it; escapes in a key's
    /// string are read as their value; an integer raw value does not rename.
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
                    self.id = try row.value("id")
                    self.createdAt = try row.value("created_at")
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
                    self.id = try row.value("id")
                    self.total = try row.value("total")
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
            diagnostics: [DiagnosticSpec(message: "@Model struct Tag needs an 'id' property (Int64? or Int? for an auto-incremented key, or a UUID or String)", line: 2, column: 8)]
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
                DiagnosticSpec(message: "Tag.level uses the property wrapper @Clamped, which @Model cannot read into; store the value itself or leave it out of CodingKeys", line: 5, column: 18),
            ]
        )
    }
}
