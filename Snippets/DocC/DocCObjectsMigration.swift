import StashCore
import StashObjects

// snippet.hide
struct PersonV1: Model {
    var id: Int64?
    var name: String
    var age: Int
    var nickname: String?
    static let entity = ObjectEntity<PersonV1>(table: "person")
}

do {
    let old = try ObjectStore("people", sandbox: .main, schema: ObjectSchema(PersonV1.self))
    try old.write { tx in
        try tx.insert(PersonV1(id: nil, name: "Ada", age: 36, nickname: "Countess"))
        try tx.insert(PersonV1(id: nil, name: "Grace", age: 85, nickname: nil))
    }
    try old.close()
}
// snippet.show
// Version 1 stored `age` as an Int and had a `nickname`. Version 2 drops the nickname,
// stores the age as text and makes the name unique: no step needed.
struct Person: Model {
    var id: Int64?
    var name: String
    var age: String
    static let entity = ObjectEntity<Person>(table: "person").unique(\.name)
}

do {
    let store = try ObjectStore("people", sandbox: .main, schema: ObjectSchema(version: 2, Person.self))
    print(try store.fetch(Person.query().sorted(\.name)).map(\.age))   // ["36", "85"]
} catch let error as StashError where error.code == .migrationFailed {
    // The data did not allow it (two people named alike, say): nothing was written, and
    // error.key names the attribute ("Person.name").
    print("refused: \(error.key ?? "?")")
}
