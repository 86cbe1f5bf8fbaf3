import Foundation
import StashSQL

// snippet.hide
import StashCore
let sandbox = try Sandbox(app: "com.example.notes")
// snippet.show
let db = try sandbox.databaseQueue("contacts")               // Documents/contacts.sqlite
try db.write { db in
    try db.execute(sql: "CREATE TABLE IF NOT EXISTS contact(id INTEGER PRIMARY KEY, name TEXT UNIQUE)")
    try db.execute(sql: "INSERT OR IGNORE INTO contact(name) VALUES (?)", arguments: ["Ada Lovelace"])
}
let names = try db.read { db in
    try String.fetchAll(db, sql: "SELECT name FROM contact WHERE name LIKE ?", arguments: ["%love%"])
}

// In async code GRDB picks its async overloads: the same calls take `await`.
func contactCount(in db: DatabaseQueue) async throws -> Int {
    try await db.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM contact") ?? 0 }
}

// One writer and concurrent readers, in another folder:
let pool = try sandbox.databasePool("library", in: .applicationSupport)
// Any file:
let other = try StashDatabase.queue(at: FileManager.default.temporaryDirectory.appendingPathComponent("data.sqlite"))
// snippet.hide
print("names \(names)")
print("count \(try await contactCount(in: db))")
print("pool \(pool.path.hasSuffix("library.sqlite")) other \(other.path.hasSuffix("data.sqlite"))")
