import StashObjectsMacros        // @Model; re-exports StashObjects

@Model                             // writes init(row:): fast fetches, no hand-written code
struct Person {
    var id: Int64?                 // auto-incremented; nil until inserted
    var name: String
    var age: Int
    var nickname: String?
    static let entity = ObjectEntity<Person>(table: "person").unique(\.name).indexed(\.age)
}

@Model
struct Card {
    var id: Int64?
    var number: String
    var ownerID: Int64
    static let entity = ObjectEntity<Card>(table: "card").belongsTo(\.ownerID, Person.self, onDelete: .cascade)
}

let store = try ObjectStore("people", sandbox: .main, schema: ObjectSchema(Person.self, Card.self))
try store.write { tx in                       // one transaction; a throw rolls it all back
    let ada = try tx.insert(Person(id: nil, name: "Itcast-1", age: 36))
    try tx.insert(Card(id: nil, number: "4400-1", ownerID: ada.id!))
}
let people = try store.fetch(Person.query()
    .filter(.like(\.name, "*Itcast-1*") && \.age > 20)
    .sorted(\.age, .descending))
let cards = try store.read { try $0.related(Card.self, of: people[0]) }          // lazy
let withCards = try store.read { try $0.fetch(Person.query(), including: Card.self) } // 2 statements
let holders = try store.fetch(Person.query().filter(.related(Card.self, where: .hasPrefix(\.number, "44"))))
for try await adults in store.observe(Person.query().filter(\.age >= 18)) {
    print("adults \(adults.count)")   // the current results at once, then after each change
    break
}
// snippet.hide
print("people \(people.map(\.name))")
print("cards \(cards.map(\.number))")
print("holders \(holders.count) withCards \(withCards.count)")
