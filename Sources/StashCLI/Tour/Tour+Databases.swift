import Foundation
import Stash
import StashSQL

extension Tour {
    @Sendable static func databases(_ tour: Tour) async throws {
        let db = try tour.sandbox.databaseQueue("contacts")
        tour.say("sandbox.databaseQueue(\"contacts\") opened \(db.path) (WAL, foreign keys, 5 s busy timeout).")
        try await db.write { db in
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS contact(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, phone TEXT)")
            try db.execute(sql: "DELETE FROM contact")
            for (name, phone) in [("Ada Lovelace", "100"), ("Alan Turing", "200"), ("Grace Hopper", "300")] {
                try db.execute(sql: "INSERT INTO contact(name, phone) VALUES (?, ?)", arguments: [name, phone])
            }
            try db.execute(sql: "UPDATE contact SET phone = ? WHERE name = ?", arguments: ["999", "Alan Turing"])
            try db.execute(sql: "DELETE FROM contact WHERE name = ?", arguments: ["Grace Hopper"])
        }
        tour.say("Created table contact, inserted 3 rows, updated one, deleted one (all with arguments, no string splicing).")
        let matches = try db.read { db in
            try Row.fetchAll(db, sql: "SELECT name, phone FROM contact WHERE name LIKE ? ORDER BY name", arguments: ["%a%"])
        }
        for row in matches {
            tour.say("  LIKE '%a%': \(row["name"] as String? ?? "") (\(row["phone"] as String? ?? "-"))")
        }
        do {
            try db.inTransaction { db in
                try db.execute(sql: "INSERT INTO contact(name) VALUES ('Katherine Johnson')")
                try db.execute(sql: "INSERT INTO contact(name) VALUES ('Ada Lovelace')")
                return .commit
            }
        } catch {
            tour.say("A transaction hit a UNIQUE violation and rolled back: \(error)")
        }
        let count = try await db.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM contact") } ?? 0
        tour.say("Rows after the rollback: \(count).")

        let pool = try tour.sandbox.databasePool("library", in: .applicationSupport)
        try await pool.write { db in try db.execute(sql: "CREATE TABLE IF NOT EXISTS book(title TEXT)") }
        tour.say("sandbox.databasePool(\"library\", in: .applicationSupport): one writer, concurrent readers.")
        tour.say("On disk:")
        tour.showFiles(under: tour.sandbox.documents)
        tour.showFiles(under: tour.sandbox.applicationSupport)
    }
}
