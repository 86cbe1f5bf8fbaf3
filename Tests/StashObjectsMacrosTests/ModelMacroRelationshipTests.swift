import Foundation
import Stash
import StashObjectsMacroExpansion
import StashObjectsMacros
import StashTestSupport
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacros
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// A one-to-one in the `@Model` form: the macro writes `person.card` and `card.person`.
@Model
struct Holder: Equatable {
    var id: Int64?
    var name: String
    static let card = ToOne<Holder, HeldCard>("card", inverse: "holder")
    static let entity = ObjectEntity<Holder>(table: "holder").relationships(card)
}

@Model
struct HeldCard: Equatable {
    var id: Int64?
    var number: String
    var holderID: Int64
    static let holder: ToOne<HeldCard, Holder> = ToOne("holder", key: \.holderID, inverse: "card", onDelete: .cascade)
    static let entity = ObjectEntity<HeldCard>(table: "held_card").relationships(holder)
}

/// What `@Model` writes for named relationships, on the expansion and through a store.
struct ModelMacroRelationshipTests {
    @Test func writesAnInstancePropertyPerStaticRelationship() {
        let declaration = """
            struct Person {
                var id: Int64?
                static let card = ToOne<Person, Card>("card", inverse: "person")
                static let children: ToMany<Person, Person> = ToMany("children", inverse: "parent")
                static let clubs = ToMany<Person, Club>("clubs")
                var clubs: RelatedObjects<Club> { related(Self.clubs) }
                static let other = Something<Person, Card>()
            }
            """
        let added = """
            extension Person: StashObjects.Model, StashObjects.ColumnDecodable {
                init(row: StashObjects.ObjectRow) throws {
                    self.id = try row.value(CodingKeys.id.stringValue)
                }
                static var columnNames: [PartialKeyPath<Self>: String] {
                    [\\.id: CodingKeys.id.stringValue]
                }
                var card: StashObjects.RelatedObject<Card> {
                    related(Self.card)
                }
                var children: StashObjects.RelatedObjects<Person> {
                    related(Self.children)
                }
            }
            """
        let specs = ["Model": MacroSpec(type: ModelMacro.self, conformances: ["StashObjects.Model", "StashObjects.ColumnDecodable"])]
        assertMacroExpansion("@Model\n" + declaration, expandedSource: declaration + "\n\n" + added, macroSpecs: specs, indentationWidth: .spaces(4)) { failure in
            Issue.record(Comment(rawValue: failure.message))
        }
    }

    @Test func readsBothSidesByName() throws {
        let folder = TemporaryFolder("objects-macro-relationships")
        let store = try ObjectStore(url: folder.file("objects.sqlite"), schema: ObjectSchema(Holder.self, HeldCard.self))
        let (ada, card) = try store.write { tx in
            let ada = try tx.insert(Holder(id: nil, name: "Ada"))
            return (ada, try tx.insert(HeldCard(id: nil, number: "4400", holderID: ada.id!)))
        }
        #expect(try store.fetch(ada.card) == card)
        #expect(try store.fetch(card.holder) == ada)
        let graph = try store.read { try $0.fetch(Holder.query().including(\.card)) }
        #expect(try graph.fetch(graph[0].card) == card)
        #expect(try store.fetch(Holder.query().filter(Holder.card.number == "4400")) == [ada])
    }
}
