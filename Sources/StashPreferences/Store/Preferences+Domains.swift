import Foundation
import StashCore

extension Preferences {
    /// Registers defaults: values that reading returns for keys with no stored value.
    /// They live in memory only and are never written.
    ///
    /// ```swift
    /// prefs.register(defaults: ["volume": .double(0.8), "theme": .string("light")])
    /// ```
    public func register(defaults: [String: PreferenceValue]) {
        let defaults = Dictionary(defaults.map { ((try? PreferencesEngine.storedKey($0.key)) ?? $0.key, $0.value) }) { _, last in last }
        engine.withLock { $0.registered.merge(defaults) { _, new in new } }
    }

    /// Registers loosely typed defaults, as UserDefaults' `register(defaults:)` takes them.
    ///
    /// - throws: ``/StashCore/StashError/Code/unsupportedValue`` when a value cannot be stored; nothing
    ///   is registered then.
    public func register(defaults: [String: Any]) throws {
        register(defaults: try defaults.mapValues { try PreferenceValue(any: $0) })
    }

    /// The registered defaults.
    public var registeredDefaults: [String: PreferenceValue] { engine.withLock { $0.registered } }

    /// Sets a volatile value: it overrides the stored one for this instance, lives in
    /// memory only, and is never written (like UserDefaults' argument domain). `nil`
    /// removes it.
    ///
    /// ```swift
    /// prefs.setVolatile(.bool(true), forKey: "demoMode")
    /// ```
    public func setVolatile(_ value: PreferenceValue?, forKey key: String) {
        let key = (try? PreferencesEngine.storedKey(key)) ?? key
        engine.withLock { $0.volatile[key] = value }
    }

    /// The volatile values.
    public var volatileValues: [String: PreferenceValue] { engine.withLock { $0.volatile } }

    /// Removes every stored value with one record (registered defaults and volatile values
    /// stay). The space is reclaimed by the next compaction.
    ///
    /// - throws: ``/StashCore/StashError/Code/diskFull``, ``/StashCore/StashError/Code/closed``.
    public func removeAll() throws {
        try run { try $0.removeAll() }
    }

    /// Every value reading would return: registered defaults, overridden by stored values,
    /// overridden by volatile values.
    public func dictionaryRepresentation() -> [String: PreferenceValue] {
        engine.withLock { engine in
            try? engine.refresh()
            var result = engine.registered
            for key in engine.storedKeys { result[key] = engine.storedValue(key) }
            result.merge(engine.volatile) { _, volatile in volatile }
            return result
        }
    }

    /// The stored values only, without defaults or volatile values: what export writes.
    public func storedValues() -> [String: PreferenceValue] {
        engine.withLock { engine in
            try? engine.refresh()
            var result: [String: PreferenceValue] = [:]
            for key in engine.storedKeys { result[key] = engine.storedValue(key) }
            return result
        }
    }

    /// The keys with a stored, unexpired value, sorted.
    public var keys: [String] {
        engine.withLock { engine in
            try? engine.refresh()
            return engine.storedKeys.sorted()
        }
    }

    /// Whether `key` has a stored, unexpired value.
    public func contains(_ key: String) -> Bool {
        engine.withLock { engine in
            try? engine.refresh()
            guard let key = try? PreferencesEngine.storedKey(key) else { return false }
            return engine.storedValue(key) != nil
        }
    }
}
