import Foundation
import StashCore

extension ObjectContext {
    // MARK: Relating objects

    /// Relates the object of a to-one relationship to `target` (or to nothing, with `nil`),
    /// as `card.person = grace` does in Core Data and SwiftData: the context sets the key on
    /// whichever side holds it (new objects' temporary ids included) and records the change
    /// for the next save. In a one-to-one, the object that reached `target` before is
    /// released (its key set to null). One undo step.
    ///
    /// The context holds the changed object: read it again with ``object(_:id:)`` or a
    /// fetch (the value you passed is not changed).
    ///
    /// ```swift
    /// let grace = context.insert(Person(id: nil, name: "Grace", age: 85))
    /// let card = context.insert(Card(id: nil, number: "4400"))
    /// try context.set(card.person, to: grace)     // or: try context.set(grace.card, to: card)
    /// try context.fetch(grace.card)?.number       // "4400", before the save
    /// try context.save()                          // one transaction, real ids everywhere
    /// ```
    ///
    /// - throws: ``/StashCore/StashError/Code/unsupportedValue`` when a key that is not
    ///   optional would be left empty (relate that object to another one, or delete it);
    ///   what ``fetch(_:)-2i9bp`` throws (a one-to-one reads who holds `target` now).
    public func set<T: Model>(_ related: RelatedObject<T>, to target: T?) throws {
        try editing { try ContextEditor(context: self).set(related, to: target) }
    }

    /// Adds `target` to the object's to-many relationship `related`, as
    /// `person.cards.append(card)` does in SwiftData: sets `target`'s key (a one-to-many) or
    /// links the two (a many-to-many), for the next save. One undo step.
    ///
    /// ```swift
    /// try context.link(ada.cards, card)
    /// try context.link(ada.clubs, chess)
    /// try context.fetch(ada.clubs)      // chess among them, before the save
    /// ```
    ///
    /// - throws: ``StashCore/StashError/Code/unknownAttribute`` when the relationship is a to-one.
    public func link<T: Model>(_ related: RelatedObjects<T>, _ target: T) throws {
        try editing { try ContextEditor(context: self).link(related, target) }
    }

    /// Takes `target` out of the object's to-many `related`: unlinks a many-to-many, or sets
    /// `target`'s key to null when it points at the object. One undo step.
    ///
    /// ```swift
    /// try context.unlink(ada.clubs, chess)
    /// ```
    ///
    /// - throws: ``/StashCore/StashError/Code/unsupportedValue`` when `target`'s key is not
    ///   optional (relate it to another object, or delete it).
    public func unlink<T: Model>(_ related: RelatedObjects<T>, _ target: T) throws {
        try editing { try ContextEditor(context: self).unlink(related, target) }
    }

    // MARK: Reading relationships

    /// The object a to-one relationship reaches, with this context's pending changes
    /// applied (new objects, changed keys and links included), or `nil`.
    ///
    /// ```swift
    /// let card = try context.fetch(grace.card)
    /// let owner = try context.fetch(card!.person)
    /// ```
    public func fetch<T: Model>(_ related: RelatedObject<T>) throws -> T? {
        try fetch(related.makeQuery(saved(related.origin, T.self)).limit(1)).first
    }

    /// The objects a to-many relationship reaches, in id order, with this context's pending
    /// changes applied.
    ///
    /// ```swift
    /// let cards = try context.fetch(ada.cards)
    /// ```
    public func fetch<T: Model>(_ related: RelatedObjects<T>) throws -> [T] {
        try fetch(related.makeQuery(saved(related.origin, T.self)))
    }

    /// `origin` with the ids the store knows after a save: a saved temporary id of the
    /// source or the target model becomes its real id.
    private func saved<T: Model>(_ origin: RelationOrigin, _: T.Type) -> RelationOrigin {
        state.withLock { state in
            func real(_ id: ObjectStore.StoredValue) -> ObjectStore.StoredValue {
                state.permanent[ContextKey(type: origin.source, id: id)] ?? state.permanent[ContextKey(type: ObjectIdentifier(T.self), id: id)] ?? id
            }
            return RelationOrigin(source: origin.source, name: origin.name, lookup: real(origin.lookup), sourceID: real(origin.sourceID))
        }
    }

    /// Runs one relationship edit as one undo step, all or nothing: when it throws, what it
    /// changed before is restored.
    private func editing(_ body: () throws -> Void) throws {
        let start = state.withLock { state in
            state.openGroup(nil)
            return state.groupMark
        }
        defer { state.withLock { $0.closeGroup() } }
        do {
            try body()
        } catch {
            state.withLock { $0.revertGroup(to: start) }
            throw error
        }
    }
}

/// Relationships edited in a context: keys set on the context's version of each object,
/// join rows recorded, all written by the next save.
private struct ContextEditor: RelationshipEditor {
    let context: ObjectContext
    var store: ObjectStore { context.store }

    func setKey<M: Model>(_ object: M, _ declaration: Relationship, to value: ObjectStore.StoredValue, onlyIf: ObjectStore.StoredValue?) throws {
        let current = context.state.withLock { state -> M? in
            let pending = state.pending[state.key(ObjectIdentifier(M.self), object.id.storedValue)]
            return pending?.kind == .delete ? nil : pending?.object as? M
        } ?? object
        if let onlyIf, declaration.keyValue(of: current) != onlyIf { return }
        context.update(try declaration.settingKey(of: current, to: value))
    }

    func holders<M: Model>(_ type: M.Type, column: String, value: ObjectStore.StoredValue) throws -> [M] {
        try context.fetch(M.query().filter(ObjectFilter(sql: "\(SQL.quote(column)) = ?", arguments: [value])))
    }

    func setLink(_ link: JoinLink, linked: Bool) throws {
        context.state.withLock { state in
            var link = link
            link.ids = zip(link.types, link.ids).map { state.key($0, $1).id }
            state.record(link, linked: linked)
        }
    }
}
