import Foundation
import GRDB
import StashCore

extension ObjectReader {
    /// Reads the object a to-one relationship reaches, or `nil`: one statement (by primary
    /// key, or by the unique key column for the side without the key).
    ///
    /// ```swift
    /// let card = try reader.fetch(ada.card)
    /// let owner = try reader.fetch(card!.person)
    /// ```
    public func fetch<T: Model>(_ related: RelatedObject<T>) throws -> T? {
        try fetch(related.query.limit(1)).first
    }

    /// Reads the objects a to-many relationship reaches, in id order: one statement.
    ///
    /// ```swift
    /// let children = try reader.fetch(ada.children)
    /// ```
    public func fetch<T: Model>(_ related: RelatedObjects<T>) throws -> [T] {
        try fetch(related.query)
    }
}

extension ObjectStore {
    /// Reads the object a to-one relationship reaches, in a read of its own.
    ///
    /// ```swift
    /// let card = try store.fetch(ada.card)
    /// ```
    public func fetch<T: Model>(_ related: RelatedObject<T>) throws -> T? {
        try read { try $0.fetch(related) }
    }

    /// Reads the objects a to-many relationship reaches, in a read of its own.
    ///
    /// ```swift
    /// let children = try store.fetch(ada.children)
    /// ```
    public func fetch<T: Model>(_ related: RelatedObjects<T>) throws -> [T] {
        try read { try $0.fetch(related) }
    }
}

extension ObjectTransaction {
    /// Links `target` to the object whose many-to-many relationship `related` is (no
    /// effect when already linked); the inverse sees the link too.
    ///
    /// ```swift
    /// try tx.link(ada.clubs, chess)
    /// ```
    ///
    /// - throws: ``StashCore/StashError/Code/missingRelatedObject`` when either object does not
    ///   exist, ``StashCore/StashError/Code/unknownAttribute`` when the relationship is not a
    ///   many-to-many.
    public func link<T: Model>(_ related: RelatedObjects<T>, _ target: T) throws {
        try changeLink(related.origin, target, insert: true)
    }

    /// Removes the link between the object of `related` and `target`.
    ///
    /// ```swift
    /// try tx.unlink(ada.clubs, chess)
    /// ```
    public func unlink<T: Model>(_ related: RelatedObjects<T>, _ target: T) throws {
        try changeLink(related.origin, target, insert: false)
    }

    private func changeLink<T: Model>(_ origin: RelationOrigin, _ target: T, insert: Bool) throws {
        guard let source = store.models[origin.source] else {
            throw StashError(.unknownModel, "the relationship's model is not in the store's schema", key: origin.name)
        }
        let relation = try source.relation(named: origin.name)
        guard case .join(let table, let sourceColumn, let targetColumn) = relation.path else {
            throw StashError(.unknownAttribute, "\(source.modelName).\(origin.name) is not a many-to-many: set the key instead", key: "\(source.modelName).\(origin.name)")
        }
        let sql = insert
            ? "INSERT OR IGNORE INTO \(SQL.quote(table))(\(SQL.quote(sourceColumn)), \(SQL.quote(targetColumn))) VALUES (?, ?)"
            : "DELETE FROM \(SQL.quote(table)) WHERE \(SQL.quote(sourceColumn)) = ? AND \(SQL.quote(targetColumn)) = ?"
        do {
            try db.execute(sql: sql, arguments: [origin.sourceID.databaseValue, target.id.storedValue.databaseValue])
        } catch let error as DatabaseError {
            throw ObjectErrors.map(error, path: store.url.path, model: source.modelName)
        }
    }
}
