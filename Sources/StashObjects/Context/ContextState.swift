import Foundation

/// An object's identity in a context: its model and its id as stored.
struct ContextKey: Hashable, Sendable {
    var type: ObjectIdentifier
    var id: ObjectStore.StoredValue
}

/// The one change a context holds for an object: repeated edits before a save replace its
/// object and keep its place in the save order.
struct PendingChange: Sendable {
    enum Kind: Sendable { case insert, update, delete }
    var kind: Kind
    /// The context's version of the object (for a delete, the object deleted).
    var object: any Model
    /// When the object was first changed since the last save: the order the save writes in.
    var sequence: Int
    /// A new number for every edit: a save forgets only the changes it wrote, not those made
    /// while it ran.
    var revision: Int
}

/// One step of undo or redo: the changes one call (or one group) made, each as the pending
/// change of its object before and after.
struct UndoStep: Sendable {
    struct Edit: Sendable {
        var key: ContextKey
        var before: PendingChange?
        var after: PendingChange?
    }
    /// A join row's pending change before and after.
    struct LinkEdit: Sendable {
        var link: JoinLink
        var before: PendingLink?
        var after: PendingLink?
    }
    var name: String?
    var edits: [Edit] = []
    var linkEdits: [LinkEdit] = []

    var isEmpty: Bool { edits.isEmpty && linkEdits.isEmpty }
}

/// A join row of a many-to-many the context adds (`linked`) or removes at the next save;
/// the last call for a row wins (both are idempotent in the store).
struct PendingLink: Sendable {
    var linked: Bool
    var sequence: Int
    var revision: Int
}

/// Everything an ``ObjectContext`` remembers, behind its lock: pending changes, the stored
/// rows it last saw, the temporary ids it issued, and its undo and redo steps.
struct ContextState {
    var pending: [ContextKey: PendingChange] = [:]
    /// The join rows to add or remove.
    var links: [JoinLink: PendingLink] = [:]
    /// The stored row of each object as the context last saw it (fetched or saved): the
    /// base a change is checked against for conflicts.
    var seen: [ContextKey: [ObjectStore.StoredValue]] = [:]
    /// The temporary ids issued per model: counting up from `Int64.min`, the end of the id
    /// space SQLite never assigns from (it counts up from the largest id).
    var temporary: [ObjectIdentifier: Set<ObjectStore.StoredValue>] = [:]
    /// The real id each saved temporary id became.
    var permanent: [ContextKey: ObjectStore.StoredValue] = [:]
    var nextTemporary = Int64.min
    var nextSequence = 0
    var nextRevision = 0
    var undoSteps: [UndoStep] = []
    var redoSteps: [UndoStep] = []
    /// The group ``ObjectContext/undoGroup(_:_:)`` is collecting, with its nesting depth.
    var group: UndoStep?
    var groupDepth = 0
    /// Whether a save is running: a second one would write the same changes again.
    var saving = false

    /// The key of `id` of model `type`, a saved temporary id replaced by its real id.
    func key(_ type: ObjectIdentifier, _ id: ObjectStore.StoredValue) -> ContextKey {
        let key = ContextKey(type: type, id: id)
        return permanent[key].map { ContextKey(type: type, id: $0) } ?? key
    }

    func isTemporary(_ type: ObjectIdentifier, _ id: ObjectStore.StoredValue) -> Bool {
        temporary[type]?.contains(id) ?? false
    }

    mutating func issueTemporary(_ type: ObjectIdentifier) -> Int64 {
        let id = nextTemporary
        nextTemporary += 1
        temporary[type, default: []].insert(.integer(id))
        return id
    }

    private mutating func revision() -> Int {
        nextRevision += 1
        return nextRevision
    }

    /// Folds a new change of the object at `key` into the one it has: an insert edited stays
    /// an insert, an insert deleted is no change at all, an update deleted is a delete.
    mutating func record(_ key: ContextKey, _ kind: PendingChange.Kind, _ object: any Model) {
        let before = pending[key]
        var after: PendingChange?
        let resulting: PendingChange.Kind? = switch (before?.kind, kind) {
        case (nil, _): kind
        case (.insert?, .delete): nil
        case (.insert?, _): .insert
        case (.update?, .delete), (.delete?, .delete): .delete
        case (.update?, _), (.delete?, _): .update
        }
        if let resulting {
            let sequence = before?.sequence ?? nextSequence
            if before == nil { nextSequence += 1 }
            after = PendingChange(kind: resulting, object: object, sequence: sequence, revision: revision())
        }
        pending[key] = after
        remember(UndoStep(name: nil, edits: [UndoStep.Edit(key: key, before: before, after: after)]))
    }

    /// Records that a join row is to be added or removed.
    mutating func record(_ link: JoinLink, linked: Bool) {
        let before = links[link]
        let sequence = before?.sequence ?? nextSequence
        if before == nil { nextSequence += 1 }
        let after = PendingLink(linked: linked, sequence: sequence, revision: revision())
        links[link] = after
        remember(UndoStep(name: nil, linkEdits: [UndoStep.LinkEdit(link: link, before: before, after: after)]))
    }

    /// Adds a change's step to the open group, or as an undo step of its own; a new change
    /// empties the redo steps.
    private mutating func remember(_ step: UndoStep) {
        if group != nil {
            group?.edits += step.edits
            group?.linkEdits += step.linkEdits
        } else {
            undoSteps.append(step)
        }
        redoSteps.removeAll()
    }

    /// Whether anything waits to be saved.
    var hasChanges: Bool { !pending.isEmpty || !links.isEmpty }

    /// Restores each edited object's change as it was before (`undo`) or after (`redo`).
    private mutating func restore(_ step: UndoStep, before: Bool) {
        let edits = before ? step.edits.reversed() : step.edits
        for edit in edits {
            var change = before ? edit.before : edit.after
            change?.revision = revision()
            pending[edit.key] = change
        }
        let linkEdits = before ? step.linkEdits.reversed() : step.linkEdits
        for edit in linkEdits {
            var change = before ? edit.before : edit.after
            change?.revision = revision()
            links[edit.link] = change
        }
    }

    /// Undoes the last step; `false` when there is none, or while a save runs (the steps
    /// are what it is writing: undone now, the undo would be lost when it finishes).
    mutating func undo() -> Bool {
        !saving && move(from: \.undoSteps, to: \.redoSteps, restoring: true)
    }

    mutating func redo() -> Bool {
        !saving && move(from: \.redoSteps, to: \.undoSteps, restoring: false)
    }

    /// Takes the last step of one stack, restores its objects' changes as they were before
    /// it (`restoring`) or after, and puts it on the other stack.
    private mutating func move(from: WritableKeyPath<Self, [UndoStep]>, to: WritableKeyPath<Self, [UndoStep]>, restoring before: Bool) -> Bool {
        closeGroup(force: true)
        guard let step = self[keyPath: from].popLast() else { return false }
        restore(step, before: before)
        self[keyPath: to].append(step)
        return true
    }

    mutating func openGroup(_ name: String?) {
        groupDepth += 1
        if group == nil { group = UndoStep(name: name) }
    }

    /// How many edits the open group holds: where ``revertGroup(to:)`` goes back to.
    var groupMark: (edits: Int, links: Int) {
        (group?.edits.count ?? 0, group?.linkEdits.count ?? 0)
    }

    /// Undoes and forgets the open group's edits made after `mark`.
    mutating func revertGroup(to mark: (edits: Int, links: Int)) {
        guard var step = group else { return }
        let later = UndoStep(name: nil, edits: Array(step.edits[mark.edits...]), linkEdits: Array(step.linkEdits[mark.links...]))
        restore(later, before: true)
        step.edits.removeSubrange(mark.edits...)
        step.linkEdits.removeSubrange(mark.links...)
        group = step
    }

    /// Ends the outermost group (or any group, when `force`): its edits become one step.
    mutating func closeGroup(force: Bool = false) {
        guard groupDepth > 0 else { return }
        groupDepth = force ? 0 : groupDepth - 1
        guard groupDepth == 0, let step = group else { return }
        group = nil
        if !step.isEmpty { undoSteps.append(step) }
    }

    /// Forgets every pending change and every undo and redo step.
    mutating func discardAll() {
        pending.removeAll()
        links.removeAll()
        undoSteps.removeAll()
        redoSteps.removeAll()
        group = nil
        groupDepth = 0
    }
}
