import Foundation
import StashCore
import StashObjectsMacros

// The model: Person ⇄ Card, one-to-one; deleting a person deletes her card.
@Model
struct Person {
    var id: Int64?
    var name: String
    var age: Int
    static let card = ToOne<Person, Card>("card", inverse: "person")
    static let entity = ObjectEntity<Person>(table: "person").relationships(card)
}

@Model
struct Card {
    var id: Int64?
    var number: String
    var personID: Int64?        // the column the relationship keeps; never written by hand below
    static let person = ToOne<Card, Person>("person", key: \.personID, inverse: "card", onDelete: .cascade)
    static let entity = ObjectEntity<Card>(table: "card").relationships(person)
}

// snippet.hide
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("people-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
let url = folder.appendingPathComponent("people.sqlite")
// snippet.show
// The persistent container and its context.
let schema = ObjectSchema(Person.self, Card.self)
let store = try ObjectStore(url: url, schema: schema)
let context = ObjectContext(store: store)

// Insert a person with her card, related by the relationship, in one save.
let ada = context.insert(Person(id: nil, name: "Itcast-1", age: 36))
let card = context.insert(Card(id: nil, number: "4400-1"))
try context.set(ada.card, to: card)                    // card.person = ada
context.insert(Person(id: nil, name: "Itcast-2", age: 25))
try context.save()

// NSPredicate "name LIKE '*Itcast*'" with an NSSortDescriptor on age.
let people = try context.fetch(Person.query().filter(.like(\.name, "*Itcast*")).sorted(\.age))

// Relationships, both ways (one statement each).
let adasCard = try context.fetch(people[1].card)        // Card?
let holder = try context.fetch(adasCard!.person)        // Person?

// A filter through the relationship, and an aggregate over a limited query.
let holders = try context.fetch(Person.query().filter(Person.card.number == "4400-1"))
let youngest = try store.read { try $0.sum(\Person.age, in: Person.query().sorted(\.age).limit(1)) }

// Two edits, undone and redone.
var grace = people[0]
grace.name = "Grace"
context.update(grace)
grace.age = 26
context.update(grace)
context.undo()                                         // age 25 again, still Grace
context.redo()                                         // age 26
try context.save()

// A second writer (another store on the file, as another process would be) changes Grace;
// the context's next save of her sees it and refuses to overwrite it.
let other = try ObjectStore(url: url, schema: schema)
try other.write { tx in try tx.update(Person(id: grace.id, name: "Grace", age: 30)) }
grace.age = 27
context.update(grace)
do {
    try context.save()
} catch StashError.Code.conflict {
    context.rollback()                                 // and read again
}

// Cascade: deleting Ada deletes her card.
context.delete(people[1])
try context.save()

// Reopen.
try store.close()
try other.close()
let reopened = try ObjectStore(url: url, schema: schema)
let after = try reopened.fetch(Person.query())
// snippet.hide
print("people \(people.map(\.name)) card \(adasCard!.number) holder \(holder!.name)")
print("holders \(holders.map(\.name)) youngest \(Int(youngest))")
print("after \(after.map { "\($0.name) \($0.age)" }) cards \(try reopened.count(Card.query()))")
try? FileManager.default.removeItem(at: folder)
