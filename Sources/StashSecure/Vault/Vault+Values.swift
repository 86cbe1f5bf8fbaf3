import Foundation
import StashCore

extension Vault {
    /// The string stored under `key` (as UTF-8), or `nil`.
    ///
    /// ```swift
    /// let token = try vault.string(forKey: "api-token")
    /// ```
    ///
    /// - throws: ``/StashCore/StashError/Code/typeMismatch`` when the entry is not UTF-8, and the errors
    ///   of ``data(forKey:)``.
    public func string(forKey key: String) throws -> String? {
        try data(forKey: key).map { try Vault.decodeString($0, key: key) }
    }

    /// Stores `string` (as UTF-8) under `key`; `nil` removes the entry.
    ///
    /// ```swift
    /// try vault.set("s3cr3t", forKey: "api-token")
    /// ```
    public func set(_ string: String?, forKey key: String) throws {
        try set(string.map { Data($0.utf8) }, forKey: key)
    }

    /// The `Codable` value stored under `key` (as JSON), or `nil`.
    ///
    /// ```swift
    /// struct Credentials: Codable { var user: String; var password: String }
    /// let credentials = try vault.value(Credentials.self, forKey: "login")
    /// ```
    ///
    /// - throws: ``/StashCore/StashError/Code/typeMismatch`` when the entry does not decode as `type`,
    ///   and the errors of ``data(forKey:)``.
    public func value<Value: Decodable>(_ type: Value.Type, forKey key: String) throws -> Value? {
        try data(forKey: key).map { try Vault.decodeJSON(type, from: $0, key: key) }
    }

    /// Stores a `Codable` value (as JSON) under `key`; `nil` removes the entry.
    ///
    /// ```swift
    /// try vault.set(Credentials(user: "ada", password: "…"), forKey: "login")
    /// ```
    ///
    /// - throws: ``/StashCore/StashError/Code/unsupportedValue`` when the value does not encode, and the
    ///   errors of ``set(_:forKey:)-(Data?,_)``.
    public func set<Value: Encodable>(_ value: Value?, forKey key: String) throws {
        try set(value.map { try Vault.encodeJSON($0, key: key) }, forKey: key)
    }

    // MARK: Encodings shared with typed keys

    static func decodeString(_ data: Data, key: String) throws -> String {
        guard let string = String(data: data, encoding: .utf8) else {
            throw StashError(.typeMismatch, "the entry is not UTF-8 text", key: key)
        }
        return string
    }

    static func decodeJSON<Value: Decodable>(_ type: Value.Type, from data: Data, key: String) throws -> Value {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw StashError(.typeMismatch, "the entry does not decode as \(type): \(error)", key: key)
        }
    }

    static func encodeJSON<Value: Encodable>(_ value: Value, key: String) throws -> Data {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            return try encoder.encode(value)
        } catch {
            throw StashError(.unsupportedValue, "the value does not encode as JSON: \(error)", key: key)
        }
    }
}
