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
    /// Relates the object of a to-one relationship to `target` (or to nothing, with `nil`)
    /// by its name: the key is set on whichever side holds it, and in a one-to-one the
    /// object that reached `target` before is released (its key set to null).
    ///
    /// ```swift
    /// let grace = try tx.insert(Person(id: nil, name: "Grace", age: 85))
    /// let card = try tx.insert(Card(id: nil, number: "4400"))
    /// try tx.set(card.person, to: grace)        // or: try tx.set(grace.card, to: card)
    /// ```
    ///
    /// - throws: ``/StashCore/StashError/Code/notFound`` when the object holding the key is
    ///   not stored; ``/StashCore/StashError/Code/unsupportedValue`` when a key that is not
    ///   optional would be left empty; ``StashCore/StashError/Code/missingRelatedObject``
    ///   when `target` is not stored.
    public func set<T: Model>(_ related: RelatedObject<T>, to target: T?) throws {
        try TransactionEditor(tx: self).set(related, to: target)
    }

    /// Adds `target` to the object's to-many relationship `related`: sets `target`'s key
    /// (a one-to-many) or adds the join row (a many-to-many; no effect when already linked).
    /// The inverse sees it too.
    ///
    /// ```swift
    /// try tx.link(ada.clubs, chess)
    /// try tx.link(ada.cards, card)     // card.personID becomes ada's id
    /// ```
    ///
    /// - throws: ``StashCore/StashError/Code/missingRelatedObject`` when either object does not
    ///   exist, ``StashCore/StashError/Code/unknownAttribute`` when the relationship is a to-one.
    public func link<T: Model>(_ related: RelatedObjects<T>, _ target: T) throws {
        try TransactionEditor(tx: self).link(related, target)
    }

    /// Takes `target` out of the object's to-many `related`: removes the join row, or sets
    /// `target`'s key to null when it points at the object.
    ///
    /// ```swift
    /// try tx.unlink(ada.clubs, chess)
    /// ```
    ///
    /// - throws: ``/StashCore/StashError/Code/unsupportedValue`` when `target`'s key is not
    ///   optional (relate it to another object, or delete it).
    public func unlink<T: Model>(_ related: RelatedObjects<T>, _ target: T) throws {
        try TransactionEditor(tx: self).unlink(related, target)
    }
}

/// Relationships edited in a transaction: each key written at once over the stored object.
private struct TransactionEditor: RelationshipEditor {
    let tx: ObjectTransaction
    var store: ObjectStore { tx.store }

    func setKey<M: Model>(_ object: M, _ declaration: Relationship, to value: ObjectStore.StoredValue, onlyIf: ObjectStore.StoredValue?) throws {
        guard let current = try tx.object(M.self, id: object.id) else {
            throw StashError(.notFound, "\(M.self) id \(object.id.storedValue) is not stored; insert it first", key: "\(M.self).id")
        }
        if let onlyIf, declaration.keyValue(of: current) != onlyIf { return }
        try tx.update(declaration.settingKey(of: current, to: value))
    }

    func holders<M: Model>(_ type: M.Type, column: String, value: ObjectStore.StoredValue) throws -> [M] {
        try tx.fetch(M.query().filter(ObjectFilter(sql: "\(SQL.quote(column)) = ?", arguments: [value])))
    }

    func setLink(_ link: JoinLink, linked: Bool) throws {
        do {
            try tx.db.execute(sql: linked ? link.insertSQL : link.deleteSQL, arguments: StatementArguments(link.ids.map(\.databaseValue)))
        } catch let error as DatabaseError {
            throw ObjectErrors.map(error, path: store.url.path, model: link.table)
        }
    }
}
