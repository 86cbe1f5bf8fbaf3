public import Foundation
import StashCore

extension Vault {
    /// A typed entry name: the value's type travels with the name, so reads need no casts.
    ///
    /// ```swift
    /// extension Vault.Key where Value == String {
    ///     static let apiToken = Vault.Key<String>("api-token")
    /// }
    /// try vault.set("s3cr3t", for: .apiToken)
    /// let token: String? = try vault[.apiToken]
    /// try vault.set(nil, for: .apiToken)        // removes
    /// ```
    ///
    /// `Key<String>` stores UTF-8, `Key<Data>` raw bytes, and a key of any other
    /// `Codable & Sendable` type stores JSON: the same bytes as the untyped calls, so both
    /// styles read each other.
    public struct Key<Value>: Sendable, Hashable, CustomStringConvertible {
        /// The entry name.
        public let name: String
        let encode: @Sendable (Value) throws -> Data
        let decode: @Sendable (Data) throws -> Value

        init(name: String, encode: @escaping @Sendable (Value) throws -> Data, decode: @escaping @Sendable (Data) throws -> Value) {
            self.name = name
            self.encode = encode
            self.decode = decode
        }

        public var description: String { name }

        public static func == (lhs: Self, rhs: Self) -> Bool { lhs.name == rhs.name }

        public func hash(into hasher: inout Hasher) { hasher.combine(name) }
    }

    /// The value under a typed key, or `nil`.
    ///
    /// ```swift
    /// let token = try vault[Vault.Key<String>("api-token")]
    /// ```
    ///
    /// - throws: ``/StashCore/StashError/Code/typeMismatch`` when the entry does not decode as `Value`,
    ///   and the errors of ``data(forKey:)``.
    public subscript<Value>(key: Key<Value>) -> Value? {
        get throws {
            try data(forKey: key.name).map(key.decode)
        }
    }

    /// Stores a value under a typed key; `nil` removes the entry.
    ///
    /// ```swift
    /// try vault.set("s3cr3t", for: Vault.Key<String>("api-token"))
    /// ```
    ///
    /// Throwing rather than a settable subscript: a secret that failed to save must not go
    /// unnoticed.
    public func set<Value>(_ value: Value?, for key: Key<Value>) throws {
        try set(value.map(key.encode), forKey: key.name)
    }

    /// Removes the entry of a typed key.
    public func removeValue<Value>(for key: Key<Value>) throws {
        try removeValue(forKey: key.name)
    }
}

extension Vault.Key where Value == String {
    /// A key for text, stored as UTF-8.
    public init(_ name: String) {
        self.init(name: name, encode: { Data($0.utf8) }, decode: { try Vault.decodeString($0, key: name) })
    }
}

extension Vault.Key where Value == Data {
    /// A key for raw bytes.
    public init(_ name: String) {
        self.init(name: name, encode: { $0 }, decode: { $0 })
    }
}

extension Vault.Key where Value: Codable & Sendable {
    /// A key for any `Codable & Sendable` value, stored as JSON.
    public init(_ name: String) {
        self.init(name: name, encode: { try Vault.encodeJSON($0, key: name) }, decode: { try Vault.decodeJSON(Value.self, from: $0, key: name) })
    }
}
