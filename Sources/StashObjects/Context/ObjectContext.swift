import Foundation
import StashCore

/// An editing scratchpad over a store, the `NSManagedObjectContext` / SwiftData
/// `ModelContext` idea for an edit screen: it collects inserts, updates and deletes, shows
/// them to its own fetches, undoes and redoes them, and ``save()-6vf2u`` writes them all in one
/// transaction, or ``rollback()`` forgets them.
///
/// - **One object per id.** Fetching an object the context holds a change for gives the
///   context's version of it, whatever the query; ``object(_:id:)`` does too.
/// - **Fetches see pending changes.** ``fetch(_:)-2i9bp`` and ``count(_:)`` run over the store
///   with the context's changes applied: inserted objects appear when they match the
///   filter, edited ones may enter or leave it, deleted ones are gone; sort, limit and
///   offset apply to the result. (They run in SQLite inside a transaction that is rolled
///   back, so every filter works as it will after the save; while changes are pending,
///   such reads wait for the store's writer.)
/// - **Temporary ids.** ``insert(_:)`` returns the object with a temporary id when SQLite
///   assigns its model's ids: negative, counting up from `Int64.min`, the end of the range
///   SQLite never assigns from, so it does not name a stored object. Other objects may point
///   at it, and the save gives it its real id and rewrites every relationship pointing at it.
/// - **One change per object.** Editing an object several times before a save is one
///   change; a save checks it against the version the context last saw (fetched or
///   saved): another writer's change in between is a conflict, settled by ``MergePolicy``.
/// - **Undo.** ``undo()`` and ``redo()`` step through the changes, one call or one
///   ``undoGroup(_:_:)`` at a time.
///
/// ```swift
/// let context = ObjectContext(store: store)
/// let grace = context.insert(Person(id: nil, name: "Grace", age: 85))   // a temporary id
/// context.insert(Card(id: nil, number: "4400", ownerID: grace.id!))      // points at it
/// try context.count(Person.query())                                      // counts Grace
/// try context.save()                                                     // real ids, one transaction
/// ```
///
/// **Threads.** A context is `Sendable`: its state sits behind a lock and every call is
/// safe from any thread or task. Changes made while a save runs stay for the next save; a
/// second save started while one runs throws `locked`, and ``undo()`` and ``redo()`` do
/// nothing (they return `false`): the steps are what the save writes. Undo steps are one per call, so
/// changes that several tasks make at once interleave in the undo history.
public final class ObjectContext: Sendable {
    /// What ``ObjectContext/save()-6vf2u`` does with an object changed in the store since the
    /// context last saw it.
    ///
    /// ```swift
    /// let context = ObjectContext(store: store, mergePolicy: .storeWins)
    /// ```
    public enum MergePolicy: Sendable {
        /// Throw ``StashCore/StashError/Code/conflict``; nothing is written.
        case fail
        /// Write the context's version over the store's.
        case contextWins
        /// Keep the store's version and drop the context's change to that object.
        case storeWins
    }

    /// The store the context reads from and saves to.
    ///
    /// ```swift
    /// let stored = try context.store.count(Person.query())   // without the pending changes
    /// ```
    public let store: ObjectStore
    /// How conflicts are resolved on save.
    ///
    /// ```swift
    /// if context.mergePolicy == .fail { /* save may throw conflict */ }
    /// ```
    public let mergePolicy: MergePolicy
    let state = LockedValue(ContextState())

    /// A context over `store`.
    ///
    /// ```swift
    /// let context = ObjectContext(store: store, mergePolicy: .contextWins)
    /// ```
    public init(store: ObjectStore, mergePolicy: MergePolicy = .fail) {
        self.store = store
        self.mergePolicy = mergePolicy
    }

    // MARK: Reading

    /// The objects `query` selects in the store with this context's pending changes applied,
    /// in the query's order; an object the context changed comes as the context's version.
    /// Each object without a pending change becomes the version later conflict checks
    /// compare with.
    ///
    /// ```swift
    /// context.insert(Person(id: nil, name: "Alan", age: 41))
    /// let people = try context.fetch(Person.query().sorted(\.name))   // Alan among them
    /// ```
    ///
    /// - throws: what ``ObjectReader/fetch(_:)->[M]`` throws.
    public func fetch<M: Model>(_ query: ObjectQuery<M>) throws -> [M] {
        try merge(PendingView(state.withLock { $0 }).fetch(query, in: store))
    }

    /// ``fetch(_:)-2i9bp`` from a task, off the caller's thread.
    ///
    /// ```swift
    /// let people = try await context.fetch(Person.query())
    /// ```
    public func fetch<M: Model>(_ query: ObjectQuery<M>) async throws -> [M] {
        let view = PendingView(state.withLock { $0 })
        return try merge(await view.fetch(query, in: store))
    }

    /// How many objects ``fetch(_:)-2i9bp`` would return (limit and offset apply).
    ///
    /// ```swift
    /// context.delete(ada)
    /// try context.count(Person.query())   // one less than the store's count
    /// ```
    public func count<M: Model>(_ query: ObjectQuery<M>) throws -> Int {
        try PendingView(state.withLock { $0 }).count(query, in: store)
    }

    /// The context's version of the object with this id (a temporary id works, also after
    /// the save that made it real), or `nil` when there is none or the context deleted it.
    ///
    /// ```swift
    /// let grace = context.insert(Person(id: nil, name: "Grace", age: 85))
    /// try context.save()
    /// let saved = try context.object(Person.self, id: grace.id)   // saved?.id is the real id
    /// ```
    public func object<M: Model>(_ type: M.Type, id: M.ID) throws -> M? {
        let (key, pending) = state.withLock { state in
            let key = state.key(ObjectIdentifier(M.self), id.storedValue)
            return (key, state.pending[key])
        }
        if let pending { return pending.kind == .delete ? nil : pending.object as? M }
        // `\M.id` is a protocol requirement, which key-path filters cannot name: the id column.
        return try fetch(M.query().filter(ObjectFilter(sql: "\(SQL.quote("id")) = ?", arguments: [key.id]))).first
    }

    /// Keeps the context's version of the objects it changed and remembers the stored rows
    /// of the others, for conflict checks.
    private func merge<M: Model>(_ found: [PendingView.Found<M>]) -> [M] {
        state.withLock { state in
            found.compactMap { found in
                let type = ObjectIdentifier(M.self)
                // A stored object whose id is one this context issued as temporary: another
                // object than the pending insert (whose row the store does not have).
                if found.storedRow != nil, state.isTemporary(type, found.object.id.storedValue) { return found.object }
                let key = state.key(type, found.object.id.storedValue)
                guard let pending = state.pending[key] else {
                    if let row = found.storedRow { state.seen[key] = row }
                    return found.object
                }
                return pending.kind == .delete ? nil : (pending.object as? M ?? found.object)
            }
        }
    }

    // MARK: Changing

    /// Whether inserts, updates or deletes wait to be saved.
    ///
    /// ```swift
    /// if context.hasChanges { try context.save() }
    /// ```
    public var hasChanges: Bool { state.withLock { $0.hasChanges } }

    /// Adds a new object, written by the next save; returns it as the context holds it: with
    /// a temporary id (negative, from `Int64.min` up) when its id is `nil` and SQLite assigns it. Objects may
    /// point at that id; the save replaces it with the real one everywhere, and the context
    /// keeps accepting it afterwards.
    ///
    /// ```swift
    /// let person = context.insert(Person(id: nil, name: "Grace", age: 85))
    /// context.insert(Card(id: nil, number: "4400", ownerID: person.id!))
    /// try context.save()   // one transaction; the card points at Grace's real id
    /// ```
    @discardableResult
    public func insert<M: Model>(_ object: M) -> M {
        state.withLock { state in
            var object = object
            let type = ObjectIdentifier(M.self)
            if object.id.storedValue == .null, M.ID.isAutoIncremented, let id = M.ID.assigned(rowID: state.issueTemporary(type)) {
                object.id = id
            }
            state.record(state.key(type, object.id.storedValue), .insert, object)
            return object
        }
    }

    /// Records the edited object, written by the next save. Edits of one object before a
    /// save are one change, checked against the version the context last saw.
    ///
    /// ```swift
    /// ada.age += 1
    /// context.update(ada)
    /// ada.nickname = "Countess"
    /// context.update(ada)    // still one change
    /// ```
    public func update<M: Model>(_ object: M) {
        record(object, .update)
    }

    /// Marks the object for deletion by the next save (checked against the version the
    /// context last saw). Deleting an object inserted since the last save forgets it.
    ///
    /// ```swift
    /// context.delete(ada)
    /// ```
    public func delete<M: Model>(_ object: M) {
        record(object, .delete)
    }

    private func record<M: Model>(_ object: M, _ kind: PendingChange.Kind) {
        state.withLock { state in
            var object = object
            let key = state.key(ObjectIdentifier(M.self), object.id.storedValue)
            if key.id != object.id.storedValue, let id = M.ID(storedValue: key.id) { object.id = id }
            state.record(key, kind, object)
        }
    }

    /// Forgets every change not yet saved, and the undo and redo history.
    ///
    /// ```swift
    /// context.rollback()   // hasChanges == false
    /// ```
    public func rollback() {
        state.withLock { $0.discardAll() }
    }

    // MARK: Saving

    /// Writes every change in one transaction: checks each changed object against the
    /// version the context last saw (per ``mergePolicy``), gives temporary ids their real
    /// ids, rewrites the relationships that point at them, and writes. On a conflict or any
    /// error nothing is written and the changes stay, so the caller can decide. A save
    /// empties the undo history: what it wrote is no longer the context's to undo.
    ///
    /// ```swift
    /// do { try context.save() } catch let error as StashError where error.code == .conflict {
    ///     context.rollback()   // and fetch again
    /// }
    /// ```
    ///
    /// **Durability:** once `save()` returns, the changes are committed to the store's SQLite
    /// file (WAL) and survive a crash of the process.
    ///
    /// - throws: ``StashCore/StashError/Code/conflict`` naming the model and id (also when a
    ///   stored object has an id this context issued as temporary, which it cannot tell
    ///   from its new object);
    ///   ``StashCore/StashError/Code/missingRelatedObject`` when an object points at the temporary id
    ///   of an object deleted in the context; ``/StashCore/StashError/Code/notFound`` for an update of
    ///   an object that does not exist; `StashError.Code.locked` while another save of this
    ///   context runs; what ``ObjectTransaction`` throws.
    public func save() throws {
        guard let save = try beginSave() else { return }
        defer { state.withLock { $0.saving = false } }
        finish(try store.write { tx in try save.run(in: tx) })
    }

    /// ``save()-6vf2u`` from a task, off the caller's thread.
    ///
    /// ```swift
    /// try await context.save()
    /// ```
    public func save() async throws {
        guard let save = try beginSave() else { return }
        defer { state.withLock { $0.saving = false } }
        finish(try await store.write { tx in try save.run(in: tx) })
    }

    /// The save to run, marking a save as running; `nil` (and no mark) when there is nothing
    /// to save.
    /// - throws: `StashError(.locked)` while another save of this context runs.
    private func beginSave() throws -> ContextSave? {
        try state.withLock { state throws(StashError) -> ContextSave? in
            guard state.hasChanges else { return nil }
            guard !state.saving else {
                throw StashError(.locked, "another save of this context is running; save again when it has finished")
            }
            state.saving = true
            let view = PendingView(state)
            return ContextSave(
                changes: view.changes, links: view.links, seen: state.seen,
                temporary: state.temporary, permanent: state.permanent, policy: mergePolicy
            )
        }
    }

    /// Forgets the changes the save wrote (not those made while it ran), remembers the rows
    /// it wrote as the versions last seen, and the real ids of the temporary ones.
    private func finish(_ result: ContextSave.Result) {
        state.withLock { state in
            state.permanent.merge(result.permanent) { $1 }
            for written in result.written {
                if state.pending[written.key]?.revision == written.revision {
                    state.pending[written.key] = nil
                } else if written.key != written.savedKey, var later = state.pending.removeValue(forKey: written.key) {
                    if later.kind == .insert { later.kind = .update }
                    state.pending[written.savedKey] = later
                }
                state.seen[written.key] = nil
                state.seen[written.savedKey] = written.row
            }
            for (link, revision) in result.links where state.links[link]?.revision == revision {
                state.links[link] = nil
            }
            state.undoSteps.removeAll()
            state.redoSteps.removeAll()
        }
    }
}
