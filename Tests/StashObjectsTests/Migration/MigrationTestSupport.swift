import Foundation
import GRDB
import StashCore
import StashObjects
import StashTestSupport
import Testing

/// A store file seeded through one schema, then migrated through another, with the checks
/// every migration test makes: what was refused and with which key, and that a refused or
/// repeated open wrote nothing (the file and its WAL hashed before and after).
struct MigrationFixture {
    let folder: TemporaryFolder
    /// Another connection held open from the seed on, so that closing a store neither
    /// checkpoints nor deletes the WAL: its frames stay there to be compared.
    let holder: DatabaseQueue

    /// Creates the file with `schema` and writes `seed` into it, keeping the WAL.
    init<T>(_ label: String, _ schema: ObjectSchema, seed: (ObjectTransaction) throws -> T) throws {
        folder = TemporaryFolder(label)
        let store = try folder.objectStore(schema)
        holder = try folder.rawDatabase()
        _ = try store.write(seed)
        try store.close()
    }

    /// The main file's and the WAL's bytes (empty when absent).
    func bytes() -> [Data] {
        ["objects.sqlite", "objects.sqlite-wal"].map { (try? Data(contentsOf: folder.file($0))) ?? Data() }
    }

    /// Opens the store with `schema` (migrating it) and returns it.
    func open(_ schema: ObjectSchema) throws -> ObjectStore { try folder.objectStore(schema) }

    /// Opening with `schema` throws `migrationFailed` keyed `key`, and leaves the file and
    /// its WAL byte-identical.
    func expectRefusal(_ schema: ObjectSchema, key: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let before = bytes()
        #expect(!before[1].isEmpty, "the WAL holds the seed, so that its bytes are compared too", sourceLocation: sourceLocation)
        do {
            let store = try open(schema)
            try? store.close()
            Issue.record("the migration was not refused", sourceLocation: sourceLocation)
        } catch let error as StashError {
            #expect(error.code == .migrationFailed, "\(error)", sourceLocation: sourceLocation)
            #expect(error.key == key, "\(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("not a StashError: \(error)", sourceLocation: sourceLocation)
        }
        #expect(bytes() == before, "a refused migration changed the file or its WAL", sourceLocation: sourceLocation)
    }

    /// Opening again with the schema it was migrated to writes nothing.
    func expectSecondOpenWritesNothing(_ schema: ObjectSchema, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let before = bytes()
        try open(schema).close()
        #expect(bytes() == before, "a second open wrote to the file or its WAL", sourceLocation: sourceLocation)
    }

    /// `(name, type, notnull)` of each column of `table`.
    func columns(_ table: String) throws -> [String] {
        try holder.read { db in
            try Row.fetchAll(db, sql: "SELECT name, type, \"notnull\" FROM pragma_table_info(?)", arguments: [table]).map { row in
                "\(row[0] as String) \(row[1] as String)\((row[2] as Int) == 1 ? " NOT NULL" : "")"
            }
        }
    }

    /// Names of the indexes of `table`, sorted.
    func indexes(_ table: String) throws -> [String] {
        try holder.read { db in try String.fetchAll(db, sql: "SELECT name FROM pragma_index_list(?) ORDER BY name", arguments: [table]) }
    }
}
