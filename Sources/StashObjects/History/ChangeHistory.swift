import Foundation
import GRDB
import StashCore

/// A position in a store's change history: the last change committed when it was read.
///
/// ```swift
/// let token = try store.changeToken()
/// // … later …
/// let changes = try store.changes(since: token)
/// ```
public struct ChangeToken: Sendable, Hashable, Codable, Comparable {
    /// The sequence number of the last recorded change (0 before any).
    public let sequence: Int64

    public init(sequence: Int64) { self.sequence = sequence }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.sequence < rhs.sequence }
}

/// What changed since a token, per model: ids inserted, updated and deleted (an object
/// inserted then deleted in that span appears nowhere; one inserted then updated is
/// inserted).
///
/// ```swift
/// let changes = try store.changes(since: token)
/// for id in changes.deleted(Person.self) { cache.remove(id) }
/// token = changes.token
/// ```
public struct ObjectChanges: Sendable {
    /// The token to pass next time.
    public let token: ChangeToken
    let entries: [String: (inserted: [ObjectStore.StoredValue], updated: [ObjectStore.StoredValue], deleted: [ObjectStore.StoredValue])]

    /// Ids of objects of `type` inserted since the token.
    public func inserted<M: Model>(_ type: M.Type) -> [M.ID] { ids(type, \.inserted) }
    /// Ids of objects of `type` updated since the token (and not inserted in that span).
    public func updated<M: Model>(_ type: M.Type) -> [M.ID] { ids(type, \.updated) }
    /// Ids of objects of `type` deleted since the token (and not inserted in that span).
    public func deleted<M: Model>(_ type: M.Type) -> [M.ID] { ids(type, \.deleted) }
    /// Whether nothing changed.
    public var isEmpty: Bool { entries.values.allSatisfy { $0.inserted.isEmpty && $0.updated.isEmpty && $0.deleted.isEmpty } }

    private func ids<M: Model>(_ type: M.Type, _ kind: KeyPath<(inserted: [ObjectStore.StoredValue], updated: [ObjectStore.StoredValue], deleted: [ObjectStore.StoredValue]), [ObjectStore.StoredValue]>) -> [M.ID] {
        guard let table = try? ModelSchema.of(type).table, let entry = entries[table] else { return [] }
        return entry[keyPath: kind].compactMap { M.ID(storedValue: $0) }
    }
}

/// The change log: table `stash_changes` filled by triggers on each model's table, so that
/// cascades and writes by other programs are recorded too.
enum ChangeHistory {
    static let table = "stash_changes"

    static func triggerName(_ table: String, _ kind: String) -> String { "stash_history_\(table)_\(kind)" }

    static func isInstalled(_ models: [ModelSchema], db: Database) throws -> Bool {
        guard try db.tableExists(table) else { return false }
        for model in models where try !db.triggerExists(triggerName(model.table, "delete")) { return false }
        return true
    }

    static func install(_ models: [ModelSchema], db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS \(table) (
              sequence INTEGER PRIMARY KEY AUTOINCREMENT,
              tableName TEXT NOT NULL,
              objectID NOT NULL,
              kind TEXT NOT NULL
            )
            """)
        for model in models {
            let id = SQL.quote(model.columns[model.idColumn].name)
            let quotedTable = SQL.quote(model.table)
            let name = SQL.literal(.text(model.table))
            for (kind, row) in [("insert", "NEW"), ("update", "NEW"), ("delete", "OLD")] {
                try db.execute(sql: """
                    CREATE TRIGGER IF NOT EXISTS \(SQL.quote(triggerName(model.table, kind))) AFTER \(kind.uppercased()) ON \(quotedTable)
                    BEGIN INSERT INTO \(table)(tableName, objectID, kind) VALUES (\(name), \(row).\(id), '\(kind)'); END
                    """)
            }
        }
    }
}

extension ObjectStore {
    private func requireHistory() throws {
        guard schema.recordsHistory else {
            throw StashError(.unsupportedValue, "change history is off: open the store with ObjectSchema(…, history: true)", path: url.path)
        }
    }

    /// The current position in the change history.
    ///
    /// ```swift
    /// let token = try store.changeToken()
    /// ```
    public func changeToken() throws -> ChangeToken {
        try requireHistory()
        return try read { reader in
            ChangeToken(sequence: try Int64.fetchOne(reader.db, sql: "SELECT IFNULL(MAX(sequence), 0) FROM \(ChangeHistory.table)") ?? 0)
        }
    }

    /// The inserted, updated and deleted ids per model committed after `token`.
    ///
    /// ```swift
    /// let changes = try store.changes(since: token)
    /// print(changes.inserted(Person.self), changes.deleted(Person.self))
    /// ```
    public func changes(since token: ChangeToken) throws -> ObjectChanges {
        try requireHistory()
        return try read { reader in
            let rows = try Row.fetchAll(reader.db, sql: "SELECT sequence, tableName, objectID, kind FROM \(ChangeHistory.table) WHERE sequence > ? ORDER BY sequence", arguments: [token.sequence])
            var first: [String: [ObjectStore.StoredValue: String]] = [:]
            var last: [String: [ObjectStore.StoredValue: String]] = [:]
            var order: [String: [ObjectStore.StoredValue]] = [:]
            var newest = token.sequence
            for row in rows {
                newest = row[0]
                let table: String = row[1]
                let id = ObjectStore.StoredValue(row[2] as DatabaseValue)
                let kind: String = row[3]
                if first[table, default: [:]][id] == nil {
                    first[table, default: [:]][id] = kind
                    order[table, default: []].append(id)
                }
                last[table, default: [:]][id] = kind
            }
            var entries: [String: (inserted: [ObjectStore.StoredValue], updated: [ObjectStore.StoredValue], deleted: [ObjectStore.StoredValue])] = [:]
            for (table, ids) in order {
                var entry: (inserted: [ObjectStore.StoredValue], updated: [ObjectStore.StoredValue], deleted: [ObjectStore.StoredValue]) = ([], [], [])
                for id in ids {
                    let began = first[table]![id]!, ended = last[table]![id]!
                    switch (began, ended) {
                    case ("insert", "delete"): break
                    case ("insert", _): entry.inserted.append(id)
                    case (_, "delete"): entry.deleted.append(id)
                    default: entry.updated.append(id)
                    }
                }
                entries[table] = entry
            }
            return ObjectChanges(token: ChangeToken(sequence: newest), entries: entries)
        }
    }
}
