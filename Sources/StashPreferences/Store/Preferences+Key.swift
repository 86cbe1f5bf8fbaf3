import Foundation
public import StashCore

extension Preferences {
    /// A typed key: a name, a type and a default value.
    ///
    /// ```swift
    /// extension Preferences.Key where Value == Double {
    ///     static let volume = Preferences.Key("volume", default: 0.8)
    /// }
    /// struct Profile: Codable, Sendable { var name: String }
    /// let profile = Preferences.Key<Profile?>("profile", default: nil)   // stored as JSON
    /// let token = Preferences.Key<String?>("token", default: nil, expiry: .after(3600))
    ///
    /// prefs[.volume] = 0.5
    /// prefs[profile] = Profile(name: "Ada")
    /// prefs[token] = nil   // removes
    /// ```
    ///
    /// Types that are ``PreferenceStorable`` are stored natively; any other `Codable` type is
    /// stored as its JSON encoding.
    public struct Key<Value: Sendable>: Sendable {
        /// The key's name in the store.
        public let name: String
        /// What reading returns when the key has no value (or a value of another type).
        public let defaultValue: Value
        /// When a value set through this key disappears (`.after` or `.at`); `.never` keeps it.
        public let expiry: ExpiryPolicy
        let encode: @Sendable (Value) throws -> PreferenceValue?
        let decode: @Sendable (PreferenceValue) throws -> Value

        /// A key for a natively stored type.
        public init(_ name: String, default defaultValue: Value, expiry: ExpiryPolicy = .never) where Value: PreferenceStorable {
            self.name = name
            self.defaultValue = defaultValue
            self.expiry = expiry
            encode = { try $0.preferenceValue() }
            decode = { try Value(preferenceValue: $0) }
        }

        /// A key for any `Codable` type, stored as JSON.
        public init(_ name: String, default defaultValue: Value, expiry: ExpiryPolicy = .never) where Value: Codable {
            self.name = name
            self.defaultValue = defaultValue
            self.expiry = expiry
            encode = { value in
                let json: Data
                do {
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.sortedKeys]
                    json = try encoder.encode(value)
                } catch {
                    throw StashError(.unsupportedValue, "the value cannot be encoded as JSON: \(error)", key: name)
                }
                return json == Data("null".utf8) ? nil : .json(json)
            }
            decode = { stored in
                let json: Data
                switch stored {
                case .json(let data), .data(let data): json = data
                case .string(let text): json = Data(text.utf8)
                default: throw PreferenceValue.mismatch(stored, Value.self)
                }
                do {
                    return try JSONDecoder().decode(Value.self, from: json)
                } catch {
                    throw StashError(.typeMismatch, "the stored JSON does not decode as \(Value.self): \(error)", key: name)
                }
            }
        }
    }

    /// The value of a typed key; its default when it has no value or one of another type.
    /// Setting stores the value (`nil`, for an optional type, removes it).
    ///
    /// ```swift
    /// prefs[.volume] += 0.1
    /// ```
    ///
    /// The setter cannot throw: when a write fails (a full disk), nothing is stored and the
    /// error is kept in ``lastError``. Use ``set(_:for:)`` to handle it.
    public subscript<Value>(key: Key<Value>) -> Value {
        get { (try? value(for: key)) ?? key.defaultValue }
        set {
            do { try set(newValue, for: key) } catch {
                let failure = error as? StashError ?? StashError(.io, "\(error)", key: key.name)
                engine.withLock { $0.lastError = failure }
            }
        }
    }

    /// The value of a typed key, or its default when it has none.
    ///
    /// - throws: ``/StashCore/StashError/Code/typeMismatch`` when the stored value has another type.
    public func value<Value>(for key: Key<Value>) throws -> Value {
        guard let stored = object(forKey: key.name) else { return key.defaultValue }
        do { return try key.decode(stored) } catch var error as StashError {
            error.key = key.name
            throw error
        }
    }

    /// Stores the value of a typed key (`nil`, for an optional type, removes it).
    ///
    /// ```swift
    /// try prefs.set(0.5, for: .volume)
    /// ```
    ///
    /// - throws: ``/StashCore/StashError/Code/unsupportedValue``, ``/StashCore/StashError/Code/diskFull``,
    ///   ``/StashCore/StashError/Code/closed``; nothing is stored then.
    public func set<Value>(_ value: Value, for key: Key<Value>) throws {
        let stored: PreferenceValue?
        do { stored = try key.encode(value) } catch var error as StashError {
            error.key = key.name
            throw error
        }
        try write(stored, forKey: key.name, expiry: key.expiry)
    }

    /// Removes the stored value of a typed key.
    ///
    /// ```swift
    /// try prefs.removeValue(for: .volume)
    /// ```
    public func removeValue<Value>(for key: Key<Value>) throws {
        try removeValue(forKey: key.name)
    }
}
