import StashSQL

// snippet.hide
import StashCore
let sandbox = try Sandbox(app: "com.example.notes")
// snippet.show
let db = try sandbox.databaseQueue("contacts")
try db.write { db in
    try db.execute(sql: "CREATE TABLE IF NOT EXISTS contact(id INTEGER PRIMARY KEY, name TEXT)")
    try db.execute(sql: "INSERT INTO contact(name) VALUES (?)", arguments: ["Ada"])
}
let count = try db.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM contact") }

// In async code GRDB picks its async overloads: the same calls take `await`.
func contacts(in db: DatabaseQueue) async throws -> Int? {
    try await db.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM contact") }
}
// snippet.hide
print("count \(count ?? -1) async \(try await contacts(in: db) ?? -1)")
