import Foundation
import StashCore

/// An editing scratchpad over a store, the `NSManagedObjectContext` idea for an edit screen:
/// it remembers the objects it fetched, collects inserts, updates and deletes, and
/// ``save()`` writes them all in one transaction, or ``rollback()`` forgets them.
///
/// Saving an object that changed in the store since this context fetched it (another
/// screen, task or process saved it) is a conflict: ``StashError/Code/conflict`` and
/// nothing written, unless the ``MergePolicy`` says which side wins.
///
/// ```swift
/// let context = ObjectContext(store: store)
/// var ada = try context.fetch(Person.query().filter(\.name == "Ada"))[0]
/// ada.age += 1
/// context.update(ada)
/// context.insert(Person(id: nil, name: "Grace", age: 85))
/// if context.hasChanges { try context.save() }
/// ```
public final class ObjectContext: Sendable {
    /// What ``ObjectContext/save()`` does with an object changed in the store since it was
    /// fetched.
    public enum MergePolicy: Sendable {
        /// Throw ``StashError/Code/conflict``; nothing is written.
        case fail
        /// Write the context's version over the store's.
        case contextWins
        /// Keep the store's version and drop the context's change to that object.
        case storeWins
    }

    private struct Key: Hashable {
        var type: ObjectIdentifier
        var id: StoredValue
    }

    private struct Change {
        /// Its place in the order changes were made: a save removes only the ones it wrote.
        var sequence = 0
        var key: Key?
        var label: String
        var apply: @Sendable (ObjectTransaction) throws -> Void
        /// The object's current encoding in the store, to compare with the snapshot.
        var current: @Sendable (ObjectReader) throws -> Data?
    }

    private struct State {
        var snapshots: [Key: Data] = [:]
        var changes: [Change] = []
        var nextSequence = 0
        /// Whether a save is running: a second one would write the same changes again.
        var saving = false

        mutating func append(_ change: Change) {
            var change = change
            change.sequence = nextSequence
            nextSequence += 1
            changes.append(change)
        }
    }

    /// What one save writes: the changes made so far and the snapshots to check them with.
    private struct Pending {
        var changes: [Change]
        var snapshots: [Key: Data]
        var policy: MergePolicy
    }

    /// The store the context reads from and saves to.
    public let store: ObjectStore
    /// How conflicts are resolved on save.
    public let mergePolicy: MergePolicy
    private let state = LockedValue(State())

    /// A context over `store`.
    ///
    /// ```swift
    /// let context = ObjectContext(store: store, mergePolicy: .contextWins)
    /// ```
    public init(store: ObjectStore, mergePolicy: MergePolicy = .fail) {
        self.store = store
        self.mergePolicy = mergePolicy
    }

    static func snapshot<M: Model>(_ object: M) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try encoder.encode(object)
    }

    /// Fetches through the store and remembers each object as it was, for conflict checks.
    ///
    /// ```swift
    /// let people = try context.fetch(Person.query().sorted(\.name))
    /// ```
    public func fetch<M: Model>(_ query: ObjectQuery<M>) throws -> [M] {
        try remember(store.fetch(query))
    }

    /// ``fetch(_:)`` from a task, off the caller's thread.
    ///
    /// ```swift
    /// let people = try await context.fetch(Person.query())
    /// ```
    public func fetch<M: Model>(_ query: ObjectQuery<M>) async throws -> [M] {
        try remember(await store.fetch(query))
    }

    private func remember<M: Model>(_ objects: [M]) throws -> [M] {
        let snapshots = try objects.map { (Key(type: ObjectIdentifier(M.self), id: $0.id.storedValue), try Self.snapshot($0)) }
        state.withLock { state in
            for (key, data) in snapshots { state.snapshots[key] = data }
        }
        return objects
    }

    /// Whether inserts, updates or deletes wait to be saved.
    public var hasChanges: Bool { state.withLock { !$0.changes.isEmpty } }

    /// Adds a new object, written by the next save.
    ///
    /// ```swift
    /// context.insert(Person(id: nil, name: "Grace", age: 85))
    /// ```
    public func insert<M: Model>(_ object: M) {
        let change = Change(key: nil, label: "\(M.self)", apply: { tx in try tx.insert(object) }, current: { _ in nil })
        state.withLock { $0.append(change) }
    }

    /// Records the edited object, written by the next save (checked against the version
    /// fetched).
    ///
    /// ```swift
    /// ada.age += 1
    /// context.update(ada)
    /// ```
    public func update<M: Model>(_ object: M) {
        record(object) { tx in try tx.update(object) }
    }

    /// Marks the object for deletion by the next save (checked against the version fetched).
    ///
    /// ```swift
    /// context.delete(ada)
    /// ```
    public func delete<M: Model>(_ object: M) {
        record(object) { tx in try tx.delete(object) }
    }

    private func record<M: Model>(_ object: M, _ apply: @escaping @Sendable (ObjectTransaction) throws -> Void) {
        let id = object.id
        let key = Key(type: ObjectIdentifier(M.self), id: id.storedValue)
        let change = Change(key: key, label: "\(M.self) id \(id.storedValue)", apply: apply) { reader in
            try reader.object(M.self, id: id).map(Self.snapshot)
        }
        state.withLock { $0.append(change) }
    }

    /// Forgets every change not yet saved.
    ///
    /// ```swift
    /// context.rollback()   // hasChanges == false
    /// ```
    public func rollback() {
        state.withLock { $0.changes.removeAll() }
    }

    /// Writes every change in one transaction. On a conflict (per ``mergePolicy``) or any
    /// error nothing is written and the changes stay, so the caller can decide.
    ///
    /// ```swift
    /// do { try context.save() } catch StashError.Code.conflict { /* reload and retry */ }
    /// ```
    ///
    /// **Durability:** once `save()` returns, the changes are committed to the store's SQLite
    /// file (WAL) and survive a crash of the process. **Threads:** a context may be used from
    /// any thread; changes made while a save runs stay for the next save, and a second save
    /// started while one runs throws `locked` instead of writing the same changes twice.
    ///
    /// - throws: ``StashError/Code/conflict`` naming the model and id;
    ///   `StashError.Code.locked` while another save of this context runs.
    public func save() throws {
        guard let pending = try pending() else { return }
        defer { state.withLock { $0.saving = false } }
        finish(pending, saved: try store.write { tx in try Self.apply(pending, in: tx) })
    }

    /// ``save()`` from a task, off the caller's thread.
    ///
    /// ```swift
    /// try await context.save()
    /// ```
    public func save() async throws {
        guard let pending = try pending() else { return }
        defer { state.withLock { $0.saving = false } }
        finish(pending, saved: try await store.write { tx in try Self.apply(pending, in: tx) })
    }

    /// The changes to save, marking a save as running; `nil` (and no mark) when there are none.
    /// - throws: `StashError(.locked)` while another save of this context runs.
    private func pending() throws -> Pending? {
        let taken = try state.withLock { state throws(StashError) -> ([Change], [Key: Data])? in
            guard !state.changes.isEmpty else { return nil }
            guard !state.saving else {
                throw StashError(.locked, "another save of this context is running; save again when it has finished")
            }
            state.saving = true
            return (state.changes, state.snapshots)
        }
        return taken.map { Pending(changes: $0.0, snapshots: $0.1, policy: mergePolicy) }
    }

    /// Applies the changes in `tx`, checking each against its snapshot; returns the new
    /// snapshots of the objects written.
    private static func apply(_ pending: Pending, in tx: ObjectTransaction) throws -> [(Key, Data?)] {
        var saved: [(Key, Data?)] = []
        for change in pending.changes {
            if let key = change.key, let snapshot = pending.snapshots[key], pending.policy != .contextWins {
                let current = try change.current(tx)
                if current != snapshot {
                    if pending.policy == .storeWins { continue }
                    throw StashError(.conflict, "\(change.label) changed in the store since this context fetched it; nothing was saved", key: change.label)
                }
            }
            try change.apply(tx)
            if let key = change.key { saved.append((key, try change.current(tx))) }
        }
        return saved
    }

    /// Forgets the changes that were saved (not those made while the save ran).
    private func finish(_ pending: Pending, saved: [(Key, Data?)]) {
        let last = pending.changes.last?.sequence ?? -1
        state.withLock { state in
            state.changes.removeAll { $0.sequence <= last }
            for (key, data) in saved { state.snapshots[key] = data }
        }
    }
}
