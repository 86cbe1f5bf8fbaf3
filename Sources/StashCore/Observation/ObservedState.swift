package import Observation

/// The state of an object that the Observation framework tracks, behind one lock: every
/// observable read of Stash (`LiveQuery`, `LiveObject`, `Preferences.Observed`,
/// `Vault.Observed`) keeps its fields here and reports reads and changes through its
/// registrar, so that a read inside `withObservationTracking` (or a SwiftUI view's `body`) is
/// tracked and a change ends the tracking with `onChange`.
///
/// ```swift
/// var count: Int { state.read(\.count, of: self) { $0.count } }
/// func receive(_ count: Int) { state.change(\.count, of: self) { $0.count = count } }
/// ```
///
/// The registrar is never called with the lock held: `onChange` runs on the changing thread
/// and may read the object again (it sees the value from before the change, as it does for
/// `@Observable` classes, whose `onChange` runs at `willSet`).
package final class ObservedState<State: Sendable>: Sendable {
    private let registrar = ObservationRegistrar()
    private let state: LockedValue<State>
    private let releases = LockedValue<[@Sendable () -> Void]>([])

    package init(_ initial: State) {
        state = LockedValue(initial)
    }

    deinit {
        for release in releases.withLock({ $0 }) { release() }
    }

    /// Runs `action` when this state is released, that is when the object holding it is:
    /// what feeds the object (a task, a store's observer, a watch) stops with it.
    package func releasing(_ action: @escaping @Sendable () -> Void) {
        releases.withLock { $0.append(action) }
    }

    /// `subject`'s property at `keyPath`, taken from the state by `get`: a tracked read.
    package func read<Subject: Observable, Member>(_ keyPath: KeyPath<Subject, Member>, of subject: Subject, _ get: (State) -> Member) -> Member {
        registrar.access(subject, keyPath: keyPath)
        return state.withLock { get($0) }
    }

    /// A look at the state that no tracking sees.
    package func peek<T>(_ get: (State) -> T) -> T {
        state.withLock { get($0) }
    }

    /// Changes what no tracked property shows (bookkeeping, or the state before anyone
    /// could read it): no tracking ends.
    package func adjust(_ body: (inout State) -> Void) {
        state.withLock { body(&$0) }
    }

    /// Changes the state; trackings of `subject`'s property at `keyPath` end.
    package func change<Subject: Observable, Member>(_ keyPath: KeyPath<Subject, Member>, of subject: Subject, _ body: (inout State) -> Void) {
        registrar.withMutation(of: subject, keyPath: keyPath) {
            state.withLock { body(&$0) }
        }
    }

    /// Changes the state only when `needed` says the change would change something (a flag
    /// already cleared is not cleared again, so its trackings go on).
    package func change<Subject: Observable, Member>(
        _ keyPath: KeyPath<Subject, Member>, of subject: Subject, when needed: (State) -> Bool, _ body: (inout State) -> Void
    ) {
        guard peek(needed) else { return }
        change(keyPath, of: subject, body)
    }
}
