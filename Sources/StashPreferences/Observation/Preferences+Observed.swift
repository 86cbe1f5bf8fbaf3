public import Observation
public import StashCore

extension Preferences {
    /// One typed key's value, kept current for the Observation framework: a read of
    /// ``value`` inside `withObservationTracking` (or a SwiftUI view's `body`, or anything
    /// else that tracks `@Observable` objects) is tracked, and the next change of that key
    /// (made by this object, by another, by the store's other methods, or by another process)
    /// ends the tracking with `onChange`.
    ///
    /// ```swift
    /// let volume = prefs.observed(.volume)
    /// withObservationTracking {
    ///     print(volume.value)
    /// } onChange: {
    ///     print("the volume changed")
    /// }
    /// volume.value = 0.3   // prints "the volume changed"
    /// ```
    ///
    /// ``Preference`` is the property-wrapper form. Changes made in this process are seen when
    /// the write returns; other processes' changes within the watch interval (the
    /// store polls the change counter in the log's header while anyone observes).
    ///
    /// **Durability.** An assignment to ``value`` (or ``set(_:)``, ``reset()``) is a
    /// ``Preferences/set(_:for:)``: when it returns, the value is in the suite's log and
    /// survives a crash of the process; it survives a power cut after ``Preferences/flush()``,
    /// or at once with ``Preferences/Options/durable``. An assignment that failed stored
    /// nothing (``lastError`` says why).
    ///
    /// Thread-safe: read and write from any thread or task. `onChange` runs on the thread
    /// that made the change (the writer's, or the store's watch queue for another process's).
    /// Each object watches its key until it is released.
    public final class Observed<Value: Sendable>: Observable, Sendable {
        /// The key this object follows.
        public let key: Key<Value>
        /// The store it reads and writes.
        public let store: Preferences

        private struct State: Sendable {
            var value: Value
            var lastError: StashError?
        }

        private let state: ObservedState<State>

        init(key: Key<Value>, store: Preferences) {
            self.key = key
            self.store = store
            state = ObservedState(State(value: key.defaultValue))
            let id = store.register(
                key: key.name,
                current: { [weak self] in
                    // Straight from the engine: the registry's lock is held here.
                    let stored = store.engine.withLock { engine in
                        try? engine.refresh()
                        return engine.resolvedValue(key.name)
                    }
                    let value = stored.flatMap { try? key.decode($0) } ?? key.defaultValue
                    // Before anyone can read it: no tracking to tell.
                    self?.state.adjust { $0.value = value }
                },
                deliver: { [weak self] change in
                    self?.receive(change.value.flatMap { try? key.decode($0) } ?? key.defaultValue)
                },
                finish: {}
            )
            if let id { state.releasing { [store] in store.removeObserver(id) } }
        }

        /// The key's value (its default when it has none, or one of another type). Setting
        /// it stores the new value; when the write fails (a full disk, a closed store),
        /// nothing changes and ``lastError`` says why. Use ``set(_:)`` to handle the error.
        public var value: Value {
            get { state.read(\.value, of: self) { $0.value } }
            set {
                do { try set(newValue) } catch {
                    let failure = error as? StashError ?? StashError(.io, "\(error)", key: key.name)
                    state.change(\.lastError, of: self) { $0.lastError = failure }
                }
            }
        }

        /// The error of the last write through ``value`` that failed; `nil` after one that
        /// succeeded.
        public var lastError: StashError? { state.read(\.lastError, of: self) { $0.lastError } }

        /// Stores `newValue` (`nil`, for an optional type, removes it).
        ///
        /// ```swift
        /// try volume.set(0.5)
        /// ```
        ///
        /// - throws: As ``Preferences/set(_:for:)``; nothing changes then.
        public func set(_ newValue: Value) throws {
            try store.set(newValue, for: key)
            clearError()
        }

        /// Removes the stored value, so that ``value`` is the key's default.
        ///
        /// - throws: As ``Preferences/removeValue(for:)``.
        public func reset() throws {
            try store.removeValue(for: key)
            clearError()
        }

        private func clearError() {
            state.change(\.lastError, of: self, when: { $0.lastError != nil }) { $0.lastError = nil }
        }

        /// A change of the key, from the store's delivery (in commit order).
        private func receive(_ newValue: Value) {
            state.change(\.value, of: self) { $0.value = newValue }
        }
    }

    /// An object that keeps `key`'s value current for the Observation framework (see
    /// ``Observed``).
    ///
    /// ```swift
    /// @Observable final class PlayerModel {
    ///     let volume = Preferences.standard.observed(.volume)
    /// }
    /// ```
    public func observed<Value>(_ key: Key<Value>) -> Observed<Value> {
        Observed(key: key, store: self)
    }
}
