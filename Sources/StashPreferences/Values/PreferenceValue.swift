public import Foundation

/// A value as a preferences store keeps it: what `object(forKey:)` returns and what tools
/// (the `stash defaults` command, import and export) work with.
///
/// Typed code rarely meets it: ``Preferences/Key`` converts to and from the Swift type.
///
/// ```swift
/// try prefs.set(.string("dark"), forKey: "theme")
/// if case .string(let theme)? = prefs.object(forKey: "theme") { … }
/// ```
///
/// A value is immutable and `Sendable`.
public enum PreferenceValue: Sendable, Hashable {
    case bool(Bool)
    /// Every signed integer type, and unsigned ones up to `Int64.max`.
    case integer(Int64)
    /// Unsigned integers above `Int64.max`.
    case unsignedInteger(UInt64)
    case double(Double)
    case float(Float)
    case string(String)
    case date(Date)
    case data(Data)
    case url(URL)
    case uuid(UUID)
    case array([PreferenceValue])
    case dictionary([String: PreferenceValue])
    /// A `Codable` value, stored as its JSON encoding.
    case json(Data)

    /// The name of the stored type, as `stash defaults` prints it.
    public var typeName: String {
        switch self {
        case .bool: "bool"
        case .integer, .unsignedInteger: "integer"
        case .double: "double"
        case .float: "float"
        case .string: "string"
        case .date: "date"
        case .data: "data"
        case .url: "url"
        case .uuid: "uuid"
        case .array: "array"
        case .dictionary: "dictionary"
        case .json: "json"
        }
    }
}

extension PreferenceValue: CustomStringConvertible {
    /// A one-line, human-readable form (strings quoted, data in hex, dates in ISO 8601).
    public var description: String {
        switch self {
        case .bool(let value): return value ? "true" : "false"
        case .integer(let value): return String(value)
        case .unsignedInteger(let value): return String(value)
        case .double(let value): return String(value)
        case .float(let value): return String(value)
        case .string(let value): return "\"" + value.replacingOccurrences(of: "\"", with: "\\\"") + "\""
        case .date(let value): return value.formatted(.iso8601)
        case .data(let value): return "<" + value.map { String(format: "%02x", $0) }.joined() + ">"
        case .url(let value): return value.absoluteString
        case .uuid(let value): return value.uuidString
        case .array(let values): return "(" + values.map(\.description).joined(separator: ", ") + ")"
        case .dictionary(let values):
            let entries = values.sorted { $0.key < $1.key }.map { "\($0.key) = \($0.value.description);" }
            return "{ " + entries.joined(separator: " ") + " }"
        case .json(let value): return String(decoding: value, as: UTF8.self)
        }
    }
}
