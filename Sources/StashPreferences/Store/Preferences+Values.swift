public import Foundation
public import StashCore

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

    /// Stores `value` under `key`.
    ///
    /// ```swift
    /// try prefs.set(.integer(3), forKey: "launchCount")
    /// try prefs.set(.string("abc"), forKey: "token", expiry: .after(3600))
    /// ```
    ///
    /// When this returns, the value survives a crash of the process; with
    /// ``Options/durable`` (or after ``flush()``) it survives a power cut.
    ///
    /// - parameters:
    ///   - value: The value to store.
    ///   - key: The key: not empty, at most 65,535 bytes.
    ///   - expiry: When the value disappears, measured with the store's clock: `.after`,
    ///     `.at` or `.never` (the default). A preference is not a cache: `.sliding` is refused.
    /// - throws: ``/StashCore/StashError/Code/invalidKey`` (empty, or longer than 65,535 bytes),
    ///   ``/StashCore/StashError/Code/unsupportedValue`` (larger than 256 MB, or a sliding expiry),
    ///   ``/StashCore/StashError/Code/diskFull``, ``/StashCore/StashError/Code/closed``. Nothing is stored then.
    public func set(_ value: PreferenceValue, forKey key: String, expiry: ExpiryPolicy = .never) throws {
        try write(value, forKey: key, expiry: expiry)
    }

    /// Stores a Swift value under `key`; an empty optional removes the key.
    ///
    /// ```swift
    /// try prefs.set(42, forKey: "answer")
    /// try prefs.set(["a", "b"], forKey: "recent")
    /// try prefs.set("abc", forKey: "token", expiry: .after(3600))
    /// ```
    ///
    /// - throws: As the untyped `set(_:forKey:expiry:)`, and
    ///   ``/StashCore/StashError/Code/unsupportedValue`` for a `nil` inside a collection.
    public func set<Value: PreferenceStorable>(_ value: Value, forKey key: String, expiry: ExpiryPolicy = .never) throws {
        try write(try value.preferenceValue(), forKey: key, expiry: expiry)
    }

    /// Removes the stored value of `key` (registered defaults and volatile values stay).
    ///
    /// ```swift
    /// try prefs.removeValue(forKey: "token")
    /// ```
    ///
    /// - throws: ``/StashCore/StashError/Code/invalidKey``, ``/StashCore/StashError/Code/diskFull``,
    ///   ``/StashCore/StashError/Code/closed``.
    public func removeValue(forKey key: String) throws {
        try write(nil, forKey: key, expiry: .never)
    }

    /// Stores `value` (`nil` removes the key) with `expiry`: the one path of every write.
    func write(_ value: PreferenceValue?, forKey key: String, expiry: ExpiryPolicy) throws {
        try run { engine in
            let deadline = try Preferences.deadline(of: expiry, now: engine.clock.now, key: key)
            try engine.write(key, value, expiry: value == nil ? nil : deadline)
        }
    }

    /// The deadline of `expiry` from `now` in seconds since 1970, `nil` for never; a sliding
    /// expiry, which only caches have, is refused. `now` is read only for an expiry: a write
    /// without one, the common one, makes no system call for the time.
    static func deadline(of expiry: ExpiryPolicy, now: @autoclosure () -> Date, key: String) throws -> Double? {
        guard !expiry.isSliding else {
            throw StashError(.unsupportedValue, "a preference expires .after or .at a date, never .sliding", key: key)
        }
        if case .never = expiry { return nil }
        return expiry.deadline(from: now())?.timeIntervalSince1970
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
