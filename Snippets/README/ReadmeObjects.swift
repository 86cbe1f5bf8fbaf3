import StashObjectsMacros        // @Model; re-exports StashObjects

@Model   // writes init(row:) (fast fetches) and person.cards
struct Person {
    var id: Int64?
    var name: String
    var age: Int
    static let cards = ToMany<Person, Card>("cards", inverse: "owner")
    static let entity = ObjectEntity<Person>(table: "person").unique(\.name).relationships(cards)
}

@Model
struct Card {
    var id: Int64?
    var number: String
    var ownerID: Int64?   // kept by the relationship
    static let owner = ToOne<Card, Person>("owner", key: \.ownerID, inverse: "cards", onDelete: .cascade)
    static let entity = ObjectEntity<Card>(table: "card").relationships(owner)
}

let store = try ObjectStore("people", sandbox: .main, schema: ObjectSchema(Person.self, Card.self))
try store.write { tx in   // one transaction: all or nothing
    let ada = try tx.insert(Person(id: nil, name: "Itcast-1", age: 36))
    try tx.link(ada.cards, tx.insert(Card(id: nil, number: "4400-1")))
}
let people = try store.fetch(Person.query()
    .filter(.like(\.name, "*Itcast-1*") && \.age > 20)
    .sorted(\.age, .descending))
let cards = try store.fetch(people[0].cards)   // 1 statement
let withCards = try store.read { try $0.fetch(Person.query().including(\.cards)) } // 2 statements
let holders = try store.fetch(Person.query().filter(.any(\.cards, where: .hasPrefix(\.number, "44"))))
for try await adults in store.observe(Person.query().filter(\.age >= 18)) {
    print("adults \(adults.count)")   // now, then after each change
    break
}
// snippet.hide
print("people \(people.map(\.name))")
print("cards \(cards.map(\.number))")
print("holders \(holders.count) withCards \(withCards.count)")
