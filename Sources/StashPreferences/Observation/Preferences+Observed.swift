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
    /// the write returns; other processes' changes within ``Preferences/watchInterval`` (the
    /// store polls the change counter in the log's header while anyone observes).
    ///
    /// Thread-safe: read and write from any thread or task. `onChange` runs on the thread
    /// that made the change (the writer's, or the store's watch queue for another process's).
    /// Each object watches its key until it is released.
    public final class Observed<Value: Sendable>: Observable, Sendable {
        /// The key this object follows.
        public let key: Key<Value>
        /// The store it reads and writes.
        public let store: Preferences

        private struct State {
            var value: Value
            var lastError: StashError?
        }

        private let registrar = ObservationRegistrar()
        private let state: LockedValue<State>
        private let observer = LockedValue<UInt64?>(nil)

        init(key: Key<Value>, store: Preferences) {
            self.key = key
            self.store = store
            state = LockedValue(State(value: key.defaultValue))
            let id = store.register(
                key: key.name,
                current: { [weak self] in
                    // Straight from the engine: the registry's lock is held here.
                    let stored = store.engine.withLock { engine in
                        try? engine.refresh()
                        return engine.resolvedValue(key.name)
                    }
                    self?.state.withLock { $0.value = stored.flatMap { try? key.decode($0) } ?? key.defaultValue }
                },
                deliver: { [weak self] change in
                    self?.receive(change.value.flatMap { try? key.decode($0) } ?? key.defaultValue)
                },
                finish: {}
            )
            observer.withLock { $0 = id }
        }

        deinit {
            if let id = observer.withLock({ $0 }) { store.removeObserver(id) }
        }

        /// The key's value (its default when it has none, or one of another type). Setting
        /// it stores the new value; when the write fails (a full disk, a closed store),
        /// nothing changes and ``lastError`` says why. Use ``set(_:)`` to handle the error.
        public var value: Value {
            get {
                registrar.access(self, keyPath: \.value)
                return state.withLock { $0.value }
            }
            set {
                do { try set(newValue) } catch {
                    let failure = error as? StashError ?? StashError(.io, "\(error)", key: key.name)
                    registrar.withMutation(of: self, keyPath: \.lastError) { state.withLock { $0.lastError = failure } }
                }
            }
        }

        /// The error of the last write through ``value`` that failed; `nil` after one that
        /// succeeded.
        public var lastError: StashError? {
            registrar.access(self, keyPath: \.lastError)
            return state.withLock { $0.lastError }
        }

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
        /// - throws: As ``Preferences/removeObject(forKey:)``.
        public func reset() throws {
            try store.remove(key)
            clearError()
        }

        private func clearError() {
            guard state.withLock({ $0.lastError != nil }) else { return }
            registrar.withMutation(of: self, keyPath: \.lastError) { state.withLock { $0.lastError = nil } }
        }

        /// A change of the key, from the store's delivery (in commit order).
        private func receive(_ newValue: Value) {
            registrar.withMutation(of: self, keyPath: \.value) { state.withLock { $0.value = newValue } }
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
