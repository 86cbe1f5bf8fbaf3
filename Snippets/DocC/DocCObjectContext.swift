import StashObjects

// snippet.hide
struct Person: Model {
    var id: Int64?
    var name: String
    var age: Int
}

struct Card: Model {
    var id: Int64?
    var number: String
    var ownerID: Int64
    static let entity = ObjectEntity<Card>().belongsTo(\.ownerID, Person.self, onDelete: .cascade)
}

let store = try ObjectStore("people", sandbox: .main, schema: ObjectSchema(Person.self, Card.self))
try store.write { tx in try tx.insert(Person(id: nil, name: "Ada", age: 36)) }
// snippet.show
let context = ObjectContext(store: store)

// A person and her card in one save: the card points at Grace's temporary id.
let grace = context.undoGroup("Add Grace") {
    let grace = context.insert(Person(id: nil, name: "Grace", age: 85))   // a temporary id
    context.insert(Card(id: nil, number: "4400", ownerID: grace.id!))
    return grace
}

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
print("older \(older.map(\.name)) temporary \(grace.id! < 0)")
print("saved \(saved!.name) \(saved!.id!) card owner \(card.ownerID) ada \(try store.fetch(Person.query().filter(\.name == "Ada"))[0].age)")
