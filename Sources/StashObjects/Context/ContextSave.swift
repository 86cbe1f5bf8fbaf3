import Foundation
import GRDB
import StashCore

/// One save of an ``ObjectContext``, run inside one write transaction: check conflicts,
/// give temporary ids their real ones, write every change with its references rewritten,
/// read back what was written. It throws before the transaction commits, so a failure at
/// any step writes nothing.
struct ContextSave: Sendable {
    /// The changes in the order they were first made.
    var changes: [(key: ContextKey, change: PendingChange)]
    /// The join rows to add or remove, in the order first changed.
    var links: [(link: JoinLink, change: PendingLink)]
    var seen: [ContextKey: [ObjectStore.StoredValue]]
    var temporary: [ObjectIdentifier: Set<ObjectStore.StoredValue>]
    var permanent: [ContextKey: ObjectStore.StoredValue]
    var policy: ObjectContext.MergePolicy

    /// One object the save wrote (or left to the store, under `.storeWins`).
    struct Written: Sendable {
        var key: ContextKey
        var revision: Int
        /// `key` with its real id.
        var savedKey: ContextKey
        /// The stored row after the save; `nil` when the object is deleted.
        var row: [ObjectStore.StoredValue]?
    }

    struct Result: Sendable {
        var written: [Written] = []
        /// The real id each temporary id of this save became.
        var permanent: [ContextKey: ObjectStore.StoredValue] = [:]
        /// The join rows written, with the revision written.
        var links: [(link: JoinLink, revision: Int)] = []
    }

    func run(in tx: ObjectTransaction) throws -> Result {
        // References are checked at commit: objects may point at each other in any order.
        try tx.db.execute(sql: "PRAGMA defer_foreign_keys = ON")
        let dropped = try conflicts(tx)
        try temporaryIDsAreFree(tx)
        var result = Result()
        result.permanent = try realIDs(tx)
        let assigned = result.permanent
        let writer = PendingWriter(tx: tx) { type, value, place in
            guard temporary[type]?.contains(value) == true else { return value }
            let key = ContextKey(type: type, id: value)
            if let real = assigned[key] ?? permanent[key] { return real }
            switch place {
            case .id:
                return nil
            case .reference:
                throw StashError(
                    .missingRelatedObject,
                    "a relationship points at temporary id \(value), whose object was deleted in this context before it was saved; nothing was written",
                    key: String(describing: value)
                )
            }
        }
        for (key, change) in changes where !dropped.contains(key) {
            if try !writer.write(change), change.kind == .update {
                throw StashError(.notFound, "\(Self.label(change.object)) does not exist in the store; nothing was written", key: Self.label(change.object))
            }
        }
        // A join row to an object this save deletes, or to a new object deleted before it
        // was saved, is left out: there is no row to link, and a delete removes its links.
        let deleted = Set(changes.filter { $0.change.kind == .delete }.map(\.key))
        for (link, change) in links {
            let gone = zip(link.types, link.ids).map { ContextKey(type: $0, id: $1) }.contains { side in
                deleted.contains(side)
                    || (temporary[side.type]?.contains(side.id) == true && assigned[side] == nil && permanent[side] == nil)
            }
            if !gone {
                do {
                    try writer.write(link, linked: change.linked)
                } catch let error as DatabaseError {
                    throw ObjectErrors.map(error, path: tx.store.url.path, model: link.table)
                }
            }
            result.links.append((link, change.revision))
        }
        for (key, change) in changes {
            let savedKey = ContextKey(type: key.type, id: assigned[key] ?? permanent[key] ?? key.id)
            let row = try Self.storedRow(change.object, id: savedKey.id, tx)
            result.written.append(Written(key: key, revision: change.revision, savedKey: savedKey, row: row))
        }
        return result
    }

    /// The keys of the changes that conflict with the store and that `.storeWins` drops;
    /// with `.fail`, the first conflict throws.
    private func conflicts(_ tx: ObjectTransaction) throws -> Set<ContextKey> {
        var dropped: Set<ContextKey> = []
        guard policy != .contextWins else { return dropped }
        for (key, change) in changes where change.kind != .insert {
            guard let seen = seen[key] else { continue }
            if try Self.storedRow(change.object, id: key.id, tx) == seen { continue }
            guard policy == .storeWins else {
                throw StashError(
                    .conflict,
                    "\(Self.label(change.object)) changed in the store since this context last saw it; nothing was saved",
                    key: Self.label(change.object)
                )
            }
            dropped.insert(key)
        }
        return dropped
    }

    /// Throws `conflict` when the store holds an object at a temporary id of a pending
    /// change: the context could not tell it from its new object (ids issued from
    /// `Int64.min` up, which SQLite never assigns, so only an id chosen by hand gets there).
    private func temporaryIDsAreFree(_ tx: ObjectTransaction) throws {
        for (key, change) in changes where temporary[key.type]?.contains(key.id) == true && permanent[key] == nil {
            guard try Self.storedRow(change.object, id: key.id, tx) != nil else { continue }
            throw StashError(
                .conflict,
                "\(Self.label(change.object)) is stored, and this context gave that id to a new object; nothing was saved",
                key: Self.label(change.object)
            )
        }
    }

    /// Gives each temporary id of an insert the id SQLite would have given it (after the
    /// largest id ever used in its table, and after the ids this save inserts explicitly),
    /// counting per table: two models on one table share its ids.
    private func realIDs(_ tx: ObjectTransaction) throws -> [ContextKey: ObjectStore.StoredValue] {
        var byTable: [String: [(key: ContextKey, object: any Model)]] = [:]
        var explicit: [String: Int64] = [:]
        for (key, change) in changes where change.kind == .insert {
            let table = try Self.table(of: change.object, tx)
            if temporary[key.type]?.contains(key.id) == true {
                byTable[table, default: []].append((key, change.object))
            } else if case .integer(let id) = key.id {
                explicit[table] = max(explicit[table] ?? 0, id)
            }
        }
        var assigned: [ContextKey: ObjectStore.StoredValue] = [:]
        for (table, inserts) in byTable.sorted(by: { $0.key < $1.key }) {
            let largest = try Self.largestID(of: inserts[0].object, tx)
            var next = max(largest, explicit[table] ?? 0)
            for (key, object) in inserts {
                let (sum, overflow) = next.addingReportingOverflow(1)
                guard !overflow, Self.fits(sum, object) else {
                    throw StashError(.unsupportedValue, "\(Self.label(object)): no id left for a new object (ids reach \(next)); nothing was written", key: Self.label(object))
                }
                next = sum
                assigned[key] = .integer(next)
            }
        }
        return assigned
    }

    private static func table<M: Model>(of object: M, _ tx: ObjectTransaction) throws -> String {
        try tx.store.schema(for: M.self).table
    }

    private static func fits<M: Model>(_ id: Int64, _ object: M) -> Bool {
        M.ID.assigned(rowID: id) != nil
    }

    /// The largest id the model's table ever held (AUTOINCREMENT never reuses one).
    private static func largestID<M: Model>(of object: M, _ tx: ObjectTransaction) throws -> Int64 {
        let schema = try tx.store.schema(for: M.self)
        let id = SQL.quote(schema.columns[schema.idColumn].name)
        var largest = try Int64.fetchOne(tx.db, sql: "SELECT MAX(\(id)) FROM \(SQL.quote(schema.table))") ?? 0
        if try Bool.fetchOne(tx.db, sql: "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE name = 'sqlite_sequence')") == true {
            let sequence = try Int64.fetchOne(tx.db, sql: "SELECT seq FROM sqlite_sequence WHERE name = ?", arguments: [schema.table]) ?? 0
            largest = max(largest, sequence)
        }
        return max(largest, 0)
    }

    private static func storedRow<M: Model>(_ object: M, id: ObjectStore.StoredValue, _ tx: ObjectTransaction) throws -> [ObjectStore.StoredValue]? {
        try tx.storedRow(M.self, id: id)
    }

    /// "Person id 1": how errors name an object.
    static func label<M: Model>(_ object: M) -> String {
        "\(M.self) id \(object.id.storedValue)"
    }
}
