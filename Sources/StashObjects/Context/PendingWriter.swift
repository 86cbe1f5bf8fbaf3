import Foundation
import GRDB
import StashCore

/// Writes a context's pending changes into a transaction as rows, its temporary ids
/// replaced: by the save (real ids, for good) and by the reads that must see the changes
/// (in a transaction rolled back afterwards).
struct PendingWriter {
    /// Where a temporary id is found: as the object's own id, or in a relationship's column.
    enum Place { case id, reference }

    let tx: ObjectTransaction
    /// The value to write for `value` of model `type` (an id, or a reference to one):
    /// itself unless it is a temporary id.
    let resolve: (_ type: ObjectIdentifier, _ value: ObjectStore.StoredValue, _ place: Place) throws -> ObjectStore.StoredValue?

    /// Writes the change; returns `false` when an update or delete found no object (or the
    /// object only ever had a temporary id, so there is nothing to delete).
    func write(_ change: PendingChange) throws -> Bool {
        try write(change.object, change.kind)
    }

    /// Adds or removes a join row, its temporary ids replaced.
    func write(_ link: JoinLink, linked: Bool) throws {
        var ids: [DatabaseValue] = []
        for (type, id) in zip(link.types, link.ids) {
            guard let value = try resolve(type, id, .reference) else { return }
            ids.append(value.databaseValue)
        }
        try tx.db.execute(sql: linked ? link.insertSQL : link.deleteSQL, arguments: StatementArguments(ids))
    }

    private func write<M: Model>(_ object: M, _ kind: PendingChange.Kind) throws -> Bool {
        let schema = try tx.store.schema(for: M.self)
        var row = try tx.row(of: object)
        guard let id = try resolve(ObjectIdentifier(M.self), row[schema.idColumn], .id) else { return false }
        row[schema.idColumn] = id
        for relationship in schema.relationships {
            guard case .toOne(let column) = relationship.kind, let index = schema.columnIndex[column] else { continue }
            if let value = try resolve(relationship.targetType, row[index], .reference) { row[index] = value }
        }
        switch kind {
        case .insert:
            try tx.insert(row: row, schema)
            return true
        case .update:
            return try tx.update(row: row, schema)
        case .delete:
            try tx.delete(id: id, schema)
            return tx.db.changesCount > 0
        }
    }
}
