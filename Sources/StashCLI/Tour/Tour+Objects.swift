import Foundation
import Stash
import StashSQL

/// The playbook's Core Data example on StashObjects: a Person with a Card.
/// A one-to-one by name: `person.card` and `card.person`.
private struct TourPerson: Model {
    var id: Int64?
    var name: String
    var age: Int
    static let card = ToOne<TourPerson, TourCard>("card", inverse: "person")
    static let entity = ObjectEntity<TourPerson>(table: "person").unique(\.name).relationships(card)
    var card: RelatedObject<TourCard> { related(Self.card) }
}

private struct TourCard: Model {
    var id: Int64?
    var number: String
    var ownerID: Int64
    static let person = ToOne<TourCard, TourPerson>("person", key: \.ownerID, inverse: "card", onDelete: .cascade)
    static let entity = ObjectEntity<TourCard>(table: "card").relationships(person)
    var person: RelatedObject<TourPerson> { related(Self.person) }
}

/// Version 2 of the person: one more attribute, with a default, migrated automatically.
private struct TourPersonV2: Model {
    var id: Int64?
    var name: String
    var age: Int
    var email: String
    static let card = ToOne<TourPersonV2, TourCardV2>("card", inverse: "person")
    static let entity = ObjectEntity<TourPersonV2>(table: "person").unique(\.name).defaultValue(\.email, "").relationships(card)
}

private struct TourCardV2: Model {
    var id: Int64?
    var number: String
    var ownerID: Int64
    static let person = ToOne<TourCardV2, TourPersonV2>("person", key: \.ownerID, inverse: "card", onDelete: .cascade)
    static let entity = ObjectEntity<TourCardV2>(table: "card").relationships(person)
}

extension Tour {
    @Sendable static func objects(_ tour: Tour) async throws {
        let url = try tour.sandbox.databaseURL("people", in: .applicationSupport)
        try? FileManager.default.removeItem(at: url)
        let store = try ObjectStore("people", sandbox: tour.sandbox, schema: ObjectSchema(version: 1, TourPerson.self, TourCard.self))
        tour.say("ObjectStore(\"people\", schema: Person, Card) opened \(store.url.path).")
        try await store.write { tx in
            for index in 1...12 {
                let person = try tx.insert(TourPerson(id: nil, name: "Itcast-\(index)", age: 18 + (index * 7) % 30))
                try tx.insert(TourCard(id: nil, number: "44\(1000 + index)", ownerID: person.id!))
            }
        }
        tour.say("Saved 12 people, each with a card, in one transaction.")
        let query = TourPerson.query().filter(.like(\.name, "*Itcast-1*")).sorted(\.age, .descending)
        let people = try await store.fetch(query)
        tour.say("name LIKE '*Itcast-1*' sorted by age descending:")
        for person in people { tour.say("  \(person.name), \(person.age)") }
        let first = people[0]
        let card = try store.fetch(first.card)
        tour.say("person.card of \(first.name), read by name only when asked (one statement): \(card?.number ?? "none").")
        if let card, let owner = try store.fetch(card.person) {
            tour.say("card.person of card \(card.number): \(owner.name).")
        }
        try await store.write { tx in try tx.delete(first) }
        let cards = try await store.count(TourCard.query())
        tour.say("Deleted \(first.name): the cascade rule deleted the card too (\(cards) cards left).")
        try store.close()

        let v2 = try ObjectStore("people", sandbox: tour.sandbox, schema: ObjectSchema(version: 2, TourPersonV2.self, TourCardV2.self))
        let migrated = try await v2.fetch(TourPersonV2.query().sorted(\.id).limit(2))
        tour.say("Reopened with schema version 2 (Person gains `email`, default \"\"): migrated automatically, data kept:")
        for person in migrated { tour.say("  \(person.name), \(person.age), email \"\(person.email)\"") }
        try v2.close()
    }
}
