import Foundation
import StashObjectsMacros

// class Dog: Object { @Persisted(primaryKey: true) var id: ObjectId; @Persisted var name = "" ;
//                     @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person> }
@Model
struct Dog {
    var id: UUID
    var name: String
    var age: Int
    static let owners = ToMany<Dog, Owner>("owners", inverse: "dogs")
    static let entity = ObjectEntity<Dog>(table: "dog").indexed(\.name).relationships(owners)
}

// class Person: Object { @Persisted var name = ""; @Persisted var dogs: List<Dog> }
@Model
struct Owner {
    var id: Int64?
    var name: String
    static let dogs = ToMany<Owner, Dog>("dogs", inverse: "owners")
    static let entity = ObjectEntity<Owner>(table: "owner").relationships(dogs)
}

// Realm(configuration: .init(schemaVersion: 2, migrationBlock: …))
let schema = ObjectSchema(version: 2, Dog.self, Owner.self, migrations: [
    MigrationStep(to: 2) { migration in try migration.rewrite(Dog.self) { $0.name = $0.name.capitalized } },
])
let store = try ObjectStore("dogs", sandbox: .main, schema: schema)

// try realm.write { realm.add(person); person.dogs.append(rex) }
try store.write { tx in
    let ada = try tx.insert(Owner(id: nil, name: "Ada"))
    let rex = try tx.insert(Dog(id: UUID(), name: "Rex", age: 3))
    let fido = try tx.insert(Dog(id: UUID(), name: "Fido", age: 9))
    try tx.link(ada.dogs, rex)
    try tx.link(ada.dogs, fido)
}

// realm.objects(Dog.self).filter("age < 5").sorted(byKeyPath: "name")
let young = try store.fetch(Dog.query().filter(\.age < 5).sorted(\.name))
let owners = try store.fetch(young[0].owners)

// results.observe { changes in … }: an async sequence of the results, now and after each change.
for try await dogs in store.observe(Dog.query().sorted(\.name)) {
    print("dogs \(dogs.count)")
    break
}
// snippet.hide
print("young \(young.map(\.name)) owners \(owners.map(\.name))")
