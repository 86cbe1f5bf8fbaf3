import StashObjectsMacros

@Model
struct Person {
    var id: Int64?
    var name: String
    var parentID: Int64?
    static let card = ToOne<Person, Card>("card", inverse: "person")                  // one-to-one
    static let parent = ToOne<Person, Person>("parent", key: \.parentID, inverse: "children", onDelete: .nullify)
    static let children = ToMany<Person, Person>("children", inverse: "parent")      // self-reference
    static let clubs = ToMany<Person, Club>("clubs", inverse: "members")             // many-to-many
    static let entity = ObjectEntity<Person>(table: "person").relationships(card, parent, children, clubs)
}

@Model
struct Card {
    var id: Int64?
    var number: String
    var ownerID: Int64
    static let person = ToOne<Card, Person>("person", key: \.ownerID, inverse: "card", onDelete: .cascade)
    static let entity = ObjectEntity<Card>(table: "card").relationships(person)
}

@Model
struct Club {
    var id: String
    static let members = ToMany<Club, Person>("members", inverse: "clubs")
    static let entity = ObjectEntity<Club>(table: "club").relationships(members)
}

let store = try ObjectStore("graph", sandbox: .main, schema: ObjectSchema(Person.self, Card.self, Club.self))
let ada = try store.write { tx in
    let ada = try tx.insert(Person(id: nil, name: "Ada", parentID: nil))
    try tx.insert(Person(id: nil, name: "Byron", parentID: ada.id))
    try tx.insert(Card(id: nil, number: "4400", ownerID: ada.id!))
    try tx.link(ada.clubs, try tx.insert(Club(id: "chess")))
    return ada
}
let card = try store.fetch(ada.card)                                   // Card?: one statement
let owner = try store.fetch(card!.person)                              // Person?
let children = try store.read { try $0.fetch(ada.children.sorted(\.name)) }  // a query, sorted further
let members = try store.read { try $0.fetch(Club.query().including(\.members, including: \.card)) }
let chess = try members.fetch(members[0].members)                      // prefetched: no statement
let holders = try store.fetch(Person.query().filter(Person.card.number == "4400" && .count(\.children) >= 1))
// snippet.hide
print("card \(card?.number ?? "-") owner \(owner?.name ?? "-")")
print("children \(children.map(\.name)) chess \(chess.map(\.name)) holders \(holders.map(\.name))")
