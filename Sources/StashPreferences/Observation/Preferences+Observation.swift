import Dispatch
import Foundation
import StashCore

extension Preferences {
    /// Every change to the stored values, this process's and other processes'.
    ///
    /// ```swift
    /// Task {
    ///     for await change in prefs.changes() { print("\(change.key) is now \(change.value?.description ?? "gone")") }
    /// }
    /// ```
    ///
    /// Changes made by other processes (or other instances on the same suite) arrive within
    /// the watch interval (50 ms): while anyone observes, the store polls the change counter in the
    /// log's header (a load from memory, no system call). The stream ends when the store is
    /// closed or the task iterating it is cancelled.
    public func changes() -> AsyncStream<PreferenceChange> {
        observe(key: nil)
    }

    /// The changes to one key.
    ///
    /// ```swift
    /// for await change in prefs.changes(forKey: "theme") { apply(change.value) }
    /// ```
    public func changes(forKey key: String) -> AsyncStream<PreferenceChange> {
        observe(key: key)
    }

    /// The value of a typed key now, then after each change (its default once removed).
    ///
    /// ```swift
    /// for await volume in prefs.values(for: .volume) { player.volume = volume }
    /// ```
    public func values<Value>(for key: Key<Value>) -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream<Value>.makeStream(bufferingPolicy: .unbounded)
        register(
            key: key.name,
            current: {
                // Straight from the engine: delivering here would take the observer lock,
                // which the caller holds. Changes found by this refresh wait for the next access.
                let stored = self.engine.withLock { engine in
                    try? engine.refresh()
                    return engine.resolvedValue(key.name)
                }
                continuation.yield(stored.flatMap { try? key.decode($0) } ?? key.defaultValue)
            },
            deliver: { change in
                let value = change.value.flatMap { try? key.decode($0) } ?? key.defaultValue
                continuation.yield(value)
            },
            finish: { continuation.finish() },
            setTermination: { onTermination in continuation.onTermination = { _ in onTermination() } }
        )
        return stream
    }

    private func observe(key: String?) -> AsyncStream<PreferenceChange> {
        let (stream, continuation) = AsyncStream<PreferenceChange>.makeStream(bufferingPolicy: .unbounded)
        register(
            key: key,
            current: {},
            deliver: { continuation.yield($0) },
            finish: { continuation.finish() },
            setTermination: { onTermination in continuation.onTermination = { _ in onTermination() } }
        )
        return stream
    }

    /// Adds an observer of `key` (every key when `nil`): `current` runs first, under the
    /// registry's lock, then `deliver` receives each change after it, and `finish` runs when
    /// the store closes. Returns the observer's number for ``removeObserver(_:)``, or `nil`
    /// when the store is closed (`current` and `finish` have run then).
    @discardableResult
    func register(
        key: String?,
        current: () -> Void,
        deliver: @escaping @Sendable (PreferenceChange) -> Void,
        finish: @escaping @Sendable () -> Void,
        setTermination: (@escaping @Sendable () -> Void) -> Void = { _ in }
    ) -> UInt64? {
        let isClosed = engine.withLock { $0.isClosed }
        if isClosed {
            current()
            finish()
            return nil
        }
        let id = observers.withLock { registry in
            // Under the registry's lock, so that no change is delivered before the current value.
            current()
            let stored = key.map { (try? PreferencesEngine.storedKey($0)) ?? $0 }
            let id = registry.add(ObserverRegistry.Observer(key: stored, deliver: deliver, finish: finish))
            engine.withLock { $0.isObserved = true }
            if url != nil, registry.timer == nil { registry.timer = startWatching() }
            return id
        }
        setTermination { [weak self] in self?.removeObserver(id) }
        return id
    }

    /// Removes the observer `id` (from ``register(key:current:deliver:finish:setTermination:)``);
    /// the last one stops the watch for other processes' changes.
    func removeObserver(_ id: UInt64) {
        observers.withLock { registry in
            registry.observers[id] = nil
            guard registry.observers.isEmpty else { return }
            registry.stopWatching()
            engine.withLock { $0.isObserved = false }
        }
    }

    /// Hands a batch of changes to the observers of their keys, in the engine's order (see
    /// ``ChangeDelivery``). Called with the engine's lock released.
    func deliver(_ batch: ChangeBatch) {
        delivery.hand(batch) { changes in
            let observers = observers.withLock { Array($0.observers.values) }
            for observer in observers {
                for change in changes where observer.key == nil || observer.key == change.key {
                    observer.deliver(change)
                }
            }
        }
    }

    private func startWatching() -> any DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
        timer.schedule(deadline: .now() + Preferences.watchInterval, repeating: Preferences.watchInterval)
        timer.setEventHandler { [weak self] in
            _ = try? self?.run { try $0.refresh() }
        }
        timer.resume()
        return timer
    }
}

/// The observers of one store and the timer that watches for other processes' changes.
/// Kept behind the store's observer lock.
final class ObserverRegistry {
    struct Observer {
        var key: String?
        var deliver: @Sendable (PreferenceChange) -> Void
        var finish: @Sendable () -> Void
    }

    var observers: [UInt64: Observer] = [:]
    var timer: (any DispatchSourceTimer)?
    private var nextID: UInt64 = 0

    func add(_ observer: Observer) -> UInt64 {
        nextID += 1
        observers[nextID] = observer
        return nextID
    }

    func stopWatching() {
        timer?.cancel()
        timer = nil
    }

    /// Removes every observer and returns them, to be finished once the lock is released
    /// (finishing a stream runs its termination handler, which takes the lock).
    func removeAll() -> [Observer] {
        let all = Array(observers.values)
        observers = [:]
        stopWatching()
        return all
    }
}
