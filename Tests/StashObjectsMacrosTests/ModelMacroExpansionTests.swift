import StashObjectsMacroPlugin
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacros
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// What `@Model` writes, and what it refuses, checked on the expansion itself.
struct ModelMacroExpansionTests {
    private let specs = ["Model": MacroSpec(type: ModelMacro.self, conformances: ["StashObjects.Model", "StashObjects.ColumnDecodable"])]

    private func expect(
        _ source: String, expands expanded: String, diagnostics: [DiagnosticSpec] = [],
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        assertMacroExpansion(source, expandedSource: expanded, diagnostics: diagnostics, macroSpecs: specs, indentationWidth: .spaces(4)) { failure in
            Issue.record(Comment(rawValue: failure.message), sourceLocation: sourceLocation)
        }
    }

    @Test func readsEveryStoredPropertyInDeclarationOrder() {
        expect(
            """
            @Model
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
            expands: """
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
            @Model
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
            expands: """
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
        let specs = ["Model": MacroSpec(type: ModelMacro.self, conformances: ["StashObjects.ColumnDecodable"])]
        assertMacroExpansion(
            """
            @Model
            struct Tag: Model {
                var id: String
            }
            """,
            expandedSource: """
            struct Tag: Model {
                var id: String
            }

            extension Tag: StashObjects.ColumnDecodable {
                init(row: StashObjects.ObjectRow) throws {
                    self.id = try row.value("id")
                }
            }
            """,
            macroSpecs: specs, indentationWidth: .spaces(4)
        ) { failure in Issue.record(Comment(rawValue: failure.message)) }
    }

    @Test func aHandWrittenInitRowIsKept() {
        expect(
            """
            @Model
            struct Tag {
                var id: String
                init(row: ObjectRow) throws { id = try row.value("id") }
            }
            """,
            expands: """
            struct Tag {
                var id: String
                init(row: ObjectRow) throws { id = try row.value("id") }
            }

            extension Tag: StashObjects.Model, StashObjects.ColumnDecodable {
            }
            """
        )
    }

    @Test func refusesWhatIsNotAStruct() {
        for (keyword, kind) in [("class", "a class"), ("enum", "an enum"), ("actor", "an actor")] {
            expect(
                "@Model \(keyword) Thing { }",
                expands: "\(keyword) Thing { }",
                diagnostics: [DiagnosticSpec(message: "@Model applies to a struct, not to \(kind): StashObjects models are value types", line: 1, column: 1)]
            )
        }
    }

    @Test func refusesAModelWithoutID() {
        expect(
            """
            @Model
            struct Tag {
                var label: String
            }
            """,
            expands: """
            struct Tag {
                var label: String
            }
            """,
            diagnostics: [DiagnosticSpec(message: "@Model struct Tag needs an 'id' property (Int64? or Int? for an auto-incremented key, or a UUID or String)", line: 2, column: 8)]
        )
    }

    @Test func refusesCodingKeysThatNameNoStoredProperty() {
        expect(
            """
            @Model struct Tag {
                var id: String
                var label: String
                var upper: String { label.uppercased() }
                enum CodingKeys: String, CodingKey {
                    case id, lable, upper
                }
            }
            """,
            expands: """
            struct Tag {
                var id: String
                var label: String
                var upper: String { label.uppercased() }
                enum CodingKeys: String, CodingKey {
                    case id, lable, upper
                }
            }
            """,
            diagnostics: [
                DiagnosticSpec(message: "CodingKeys.lable names no stored property of Tag", line: 6, column: 18),
                DiagnosticSpec(message: "Tag.upper is a computed property, so it has no column; leave it out of CodingKeys", line: 6, column: 25),
            ]
        )
    }

    @Test func refusesLazyAndWrappedAttributes() {
        expect(
            """
            @Model struct Tag {
                var id: String
                lazy var count: Int = 0
                @Clamped var level: Int
            }
            """,
            expands: """
            struct Tag {
                var id: String
                lazy var count: Int = 0
                @Clamped var level: Int
            }
            """,
            diagnostics: [
                DiagnosticSpec(message: "Tag.count is lazy and cannot be a column; make it a plain stored property or leave it out of CodingKeys", line: 3, column: 14),
                DiagnosticSpec(message: "Tag.level uses the property wrapper @Clamped, which @Model cannot read into; store the value itself or leave it out of CodingKeys", line: 4, column: 18),
            ]
        )
    }
}
