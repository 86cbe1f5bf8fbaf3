import StashObjects

// snippet.hide
struct Person: Model {
    var id: Int64?
    var name: String
    var age: Int
    static let card = ToOne<Person, Card>("card", inverse: "owner")
    static let clubs = ToMany<Person, Club>("clubs", inverse: "members")
    static let entity = ObjectEntity<Person>().relationships(card, clubs)
    var card: RelatedObject<Card> { related(Self.card) }
    var clubs: RelatedObjects<Club> { related(Self.clubs) }
}

struct Card: Model {
    var id: Int64?
    var number: String
    var ownerID: Int64?
    static let owner = ToOne<Card, Person>("owner", key: \.ownerID, inverse: "card", onDelete: .cascade)
    static let entity = ObjectEntity<Card>().relationships(owner)
    var owner: RelatedObject<Person> { related(Self.owner) }
}

struct Club: Model {
    var id: String
    static let members = ToMany<Club, Person>("members", inverse: "clubs")
    static let entity = ObjectEntity<Club>().relationships(members)
}

let store = try ObjectStore("people", sandbox: .main, schema: ObjectSchema(Person.self, Card.self, Club.self))
let chess = try store.write { tx in
    try tx.insert(Person(id: nil, name: "Ada", age: 36))
    return try tx.insert(Club(id: "chess"))
}
// snippet.show
let context = ObjectContext(store: store)

// A person, her card and a club in one save, related by name: no key written by hand.
let grace = try context.undoGroup("Add Grace") {
    let grace = context.insert(Person(id: nil, name: "Grace", age: 85))   // a temporary id
    try context.set(grace.card, to: context.insert(Card(id: nil, number: "4400")))
    try context.link(grace.clubs, chess)                                // a many-to-many link
    return grace
}
let pendingCard = try context.fetch(grace.card)         // read through the pending changes

// Fetches through the context see its pending changes, sorted and filtered in SQLite.
var ada = try context.fetch(Person.query().filter(\.name == "Ada"))[0]
ada.age = 37
context.update(ada)
ada.age = 38
context.update(ada)                                     // still one change
let older = try context.fetch(Person.query().filter(\.age > 30).sorted(\.age))

context.undo()                                          // Ada is 37 again
try context.save()                                      // one transaction, real ids

let card = try store.fetch(Card.query())[0]             // card.ownerID == Grace's real id
let saved = try context.object(Person.self, id: grace.id)   // the temporary id still works
// snippet.hide
print("older \(older.map(\.name)) temporary \(grace.id! < 0) card \(pendingCard!.number)")
print("saved \(saved!.name) \(saved!.id!) card owner \(card.ownerID!) ada \(try store.fetch(Person.query().filter(\.name == "Ada"))[0].age) clubs \(try store.fetch(saved!.clubs).map(\.id))")
