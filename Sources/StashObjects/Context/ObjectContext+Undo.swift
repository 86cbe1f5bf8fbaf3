import Foundation
import StashCore

/// Undo and redo of a context's unsaved changes, as Core Data's `UndoManager` gives them:
/// each ``ObjectContext/insert(_:)``, ``ObjectContext/update(_:)`` and
/// ``ObjectContext/delete(_:)`` is one step, or the changes of one named
/// ``ObjectContext/undoGroup(_:_:)`` together. A new change empties the redo steps;
/// ``ObjectContext/save()`` and ``ObjectContext/rollback()`` empty both.
extension ObjectContext {
    /// Whether ``undo()`` has a step to undo.
    ///
    /// ```swift
    /// context.update(ada)
    /// context.canUndo   // true
    /// ```
    public var canUndo: Bool { state.withLock { !$0.undoSteps.isEmpty || !($0.group?.isEmpty ?? true) } }

    /// Whether ``redo()`` has a step to redo.
    ///
    /// ```swift
    /// context.undo()
    /// context.canRedo   // true
    /// ```
    public var canRedo: Bool { state.withLock { !$0.redoSteps.isEmpty } }

    /// The name of the group ``undo()`` would undo (`nil` for a single change or no step),
    /// for an "Undo Rename" menu item.
    ///
    /// ```swift
    /// context.undoGroup("Rename") { context.update(ada) }
    /// context.undoActionName   // "Rename"
    /// ```
    public var undoActionName: String? { state.withLock { $0.group?.name ?? $0.undoSteps.last?.name } }

    /// The name of the group ``redo()`` would redo (`nil` for a single change or no step).
    ///
    /// ```swift
    /// context.undo()
    /// context.redoActionName   // "Rename"
    /// ```
    public var redoActionName: String? { state.withLock { $0.redoSteps.last?.name } }

    /// Undoes the last step: each object it changed gets back the pending change it had
    /// before (an undone insert is no longer pending, an undone edit restores the previous
    /// edit or none). Returns `false`, changing nothing, when there is no step to undo.
    ///
    /// ```swift
    /// ada.age = 99
    /// context.update(ada)
    /// context.undo()
    /// context.hasChanges   // false: Ada is as the context last saw her
    /// ```
    @discardableResult
    public func undo() -> Bool {
        state.withLock { $0.undo() }
    }

    /// Redoes the last undone step. Returns `false`, changing nothing, when there is none.
    ///
    /// ```swift
    /// context.undo()
    /// context.redo()   // the change is pending again
    /// ```
    @discardableResult
    public func redo() -> Bool {
        state.withLock { $0.redo() }
    }

    /// Runs `body`; every change it makes through this context is one undo step named
    /// `name`. Groups nest: an inner group joins the outer one.
    ///
    /// ```swift
    /// context.undoGroup("Add Grace and her card") {
    ///     let grace = context.insert(Person(id: nil, name: "Grace", age: 85))
    ///     context.insert(Card(id: nil, number: "4400", ownerID: grace.id!))
    /// }
    /// context.undo()   // both inserts are gone
    /// ```
    @discardableResult
    public func undoGroup<T>(_ name: String, _ body: () throws -> T) rethrows -> T {
        state.withLock { $0.openGroup(name) }
        defer { state.withLock { $0.closeGroup() } }
        return try body()
    }
}
