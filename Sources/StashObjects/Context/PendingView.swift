import Foundation
import GRDB
import StashCore

/// The store as a context sees it: its pending changes written in a write transaction that
/// is always rolled back, so that a query (any filter, sort, limit and offset the query
/// language has, relationship filters included) runs in SQLite over the merged data, exactly
/// as it will after the save.
///
/// Cost: while the context has pending changes, each read through it waits for the store's
/// writer, rewrites every pending change (one statement each) and rolls back: reads are
/// serialized with the store's writes and cost O(pending changes) more. A context with no
/// pending change reads like the store, concurrently.
struct PendingView: Sendable {
    var changes: [(key: ContextKey, change: PendingChange)]
    /// The join rows to add or remove, in the order first changed.
    var links: [(link: JoinLink, change: PendingLink)]
    var temporary: [ObjectIdentifier: Set<ObjectStore.StoredValue>]
    var permanent: [ContextKey: ObjectStore.StoredValue]

    /// One object a read found, with its stored row when the store has it without the
    /// context's changes (the version a later conflict check compares with).
    struct Found<M: Model>: Sendable {
        var object: M
        var storedRow: [ObjectStore.StoredValue]?
    }

    init(_ state: ContextState) {
        changes = state.pending.map { (key: $0.key, change: $0.value) }.sorted { $0.change.sequence < $1.change.sequence }
        links = state.links.map { (link: $0.key, change: $0.value) }.sorted { $0.change.sequence < $1.change.sequence }
        temporary = state.temporary
        permanent = state.permanent
    }

    var isEmpty: Bool { changes.isEmpty && links.isEmpty }

    func fetch<M: Model>(_ query: ObjectQuery<M>, in store: ObjectStore) throws -> [Found<M>] {
        if isEmpty {
            return try store.read { reader in try reader.fetchWithRows(query).map { Found(object: $0.object, storedRow: $0.row) } }
        }
        try store.checkOpen()
        return try ObjectErrors.mapping(path: store.url.path) {
            try store.pool.writeWithoutTransaction { db in try fetch(query, db, store) }
        }
    }

    func fetch<M: Model>(_ query: ObjectQuery<M>, in store: ObjectStore) async throws -> [Found<M>] {
        if isEmpty {
            return try await store.read { reader in try reader.fetchWithRows(query).map { Found(object: $0.object, storedRow: $0.row) } }
        }
        try store.checkOpen()
        return try await ObjectErrors.mapping(path: store.url.path) {
            try await store.pool.writeWithoutTransaction { db in try fetch(query, db, store) }
        }
    }

    func count<M: Model>(_ query: ObjectQuery<M>, in store: ObjectStore) throws -> Int {
        if isEmpty { return try store.count(query) }
        try store.checkOpen()
        return try ObjectErrors.mapping(path: store.url.path) {
            try store.pool.writeWithoutTransaction { db in
                try rolledBack(db, store) { tx in
                    try apply(tx)
                    return try tx.count(query)
                }
            }
        }
    }

    /// The query over the merged data; then, the pending changes undone, the stored rows of
    /// the objects found.
    private func fetch<M: Model>(_ query: ObjectQuery<M>, _ db: Database, _ store: ObjectStore) throws -> [Found<M>] {
        try rolledBack(db, store) { tx in
            var objects: [M] = []
            try db.inSavepoint {
                try apply(tx)
                objects = try tx.fetch(query)
                return .rollback
            }
            return try objects.map { Found(object: $0, storedRow: try tx.storedRow(M.self, id: $0.id.storedValue)) }
        }
    }

    /// Runs `body` in a transaction that is rolled back whatever happens.
    private func rolledBack<T>(_ db: Database, _ store: ObjectStore, _ body: (ObjectTransaction) throws -> T) throws -> T {
        var result: T?
        try db.inTransaction(.immediate) {
            try db.execute(sql: "PRAGMA defer_foreign_keys = ON")
            let tx = ObjectTransaction(db: db, store: store)
            result = try body(tx)
            return .rollback
        }
        guard let result else { throw StashError(.io, "SQLite: the context's read ran outside its transaction", path: store.url.path) }
        return result
    }

    /// Writes the pending changes, each in its own savepoint: one the store would refuse (a
    /// duplicate unique value) is left out of the view, and the save will report it.
    private func apply(_ tx: ObjectTransaction) throws {
        let writer = PendingWriter(tx: tx) { type, value, _ in
            guard temporary[type]?.contains(value) == true else { return value }
            return permanent[ContextKey(type: type, id: value)] ?? value
        }
        for (_, change) in changes {
            try? tx.db.inSavepoint {
                _ = try writer.write(change)
                return .commit
            }
        }
        for (link, change) in links {
            try? tx.db.inSavepoint {
                try writer.write(link, linked: change.linked)
                return .commit
            }
        }
    }
}
