public import Foundation
import StashCore

extension Preferences {
    /// The value of `key`: its volatile value, else its stored one, else its registered
    /// default; `nil` when it has none (or its stored value expired).
    ///
    /// ```swift
    /// if case .string(let theme)? = prefs.object(forKey: "theme") { … }
    /// ```
    public func object(forKey key: String) -> PreferenceValue? {
        let (value, changes) = engine.withLock { $0.read(key) }
        if let changes { deliver(changes) }
        return value
    }

    /// Stores `value` under `key`; `nil` removes the key.
    ///
    /// ```swift
    /// try prefs.set(.integer(3), forKey: "launchCount")
    /// try prefs.set(.string("abc"), forKey: "token", expiresAfter: 3600)
    /// ```
    ///
    /// When this returns, the value survives a crash of the process; with
    /// ``Options/durable`` (or after ``flush()``) it survives a power cut.
    ///
    /// - parameters:
    ///   - value: The value to store; `nil` removes the key.
    ///   - key: The key: not empty, at most 65,535 bytes.
    ///   - expiresAfter: Seconds after which the value disappears, measured with the store's
    ///     clock; `nil` to keep it.
    /// - throws: ``/StashCore/StashError/Code/invalidKey`` (empty, or longer than 65,535 bytes),
    ///   ``/StashCore/StashError/Code/unsupportedValue`` (larger than 256 MB),
    ///   ``/StashCore/StashError/Code/diskFull``, ``/StashCore/StashError/Code/closed``. Nothing is stored then.
    public func set(_ value: PreferenceValue?, forKey key: String, expiresAfter: TimeInterval? = nil) throws {
        try run { engine in
            let expiry = expiresAfter.map { engine.clock.now.timeIntervalSince1970 + $0 }
            try engine.write(key, value, expiry: value == nil ? nil : expiry)
        }
    }

    /// Stores a Swift value under `key`; an empty optional removes the key.
    ///
    /// ```swift
    /// try prefs.set(42, forKey: "answer")
    /// try prefs.set(["a", "b"], forKey: "recent")
    /// ```
    ///
    /// - throws: As the untyped `set(_:forKey:expiresAfter:)`, and
    ///   ``/StashCore/StashError/Code/unsupportedValue`` for a `nil` inside a collection.
    public func set<Value: PreferenceStorable>(_ value: Value, forKey key: String, expiresAfter: TimeInterval? = nil) throws {
        try set(try value.preferenceValue(), forKey: key, expiresAfter: expiresAfter)
    }

    /// Stores a loosely typed value, as UserDefaults' `set(_:forKey:)` does; `nil` removes.
    ///
    /// ```swift
    /// try prefs.setObject(["size": 12, "bold": true], forKey: "font")
    /// ```
    ///
    /// - throws: ``/StashCore/StashError/Code/unsupportedValue`` for a value of a type that cannot be
    ///   stored (nothing is stored then), and as the untyped `set(_:forKey:expiresAfter:)`.
    public func setObject(_ value: Any?, forKey key: String) throws {
        guard let value else { return try set(nil as PreferenceValue?, forKey: key) }
        try set(try PreferenceValue(any: value), forKey: key)
    }

    /// Removes the stored value of `key` (registered defaults and volatile values stay).
    public func removeObject(forKey key: String) throws {
        try set(nil as PreferenceValue?, forKey: key)
    }

    /// The value of `key` as `type`, or `nil` when it has none or another type.
    ///
    /// ```swift
    /// let recent = prefs.value(forKey: "recent", as: [String].self) ?? []
    /// ```
    public func value<Value: PreferenceStorable>(forKey key: String, as type: Value.Type = Value.self) -> Value? {
        guard let stored = object(forKey: key) else { return nil }
        return try? Value(preferenceValue: stored)
    }

    /// The string value of `key`, or `nil`.
    public func string(forKey key: String) -> String? { value(forKey: key, as: String.self) }

    /// The integer value of `key`, or 0 (UserDefaults' convention).
    public func integer(forKey key: String) -> Int { value(forKey: key, as: Int.self) ?? 0 }

    /// The floating-point value of `key`, or 0.
    public func double(forKey key: String) -> Double { value(forKey: key, as: Double.self) ?? 0 }

    /// The Boolean value of `key`, or `false`.
    public func bool(forKey key: String) -> Bool { value(forKey: key, as: Bool.self) ?? false }

    /// The data value of `key`, or `nil`.
    public func data(forKey key: String) -> Data? { value(forKey: key, as: Data.self) }

    /// The URL value of `key`, or `nil`.
    public func url(forKey key: String) -> URL? { value(forKey: key, as: URL.self) }
}
