import StashObjects

struct Person: Model {
    var id: Int64?
    var name: String
    var age: Int
    static let entity = ObjectEntity<Person>(table: "person").unique(\.name)
}

let store = try ObjectStore("people", sandbox: .main, schema: ObjectSchema(Person.self))
try store.write { tx in try tx.insert(Person(id: nil, name: "Itcast-1", age: 20)) }
let people = try store.fetch(Person.query().filter(.like(\.name, "*Itcast-1*")).sorted(\.age, .descending))
// snippet.hide
print("people \(people.map(\.name))")
