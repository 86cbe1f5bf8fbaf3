import Foundation
public import StashCore

extension PreferenceValue {
    /// Converts a loosely typed value, as UserDefaults' `set(_:forKey:)` takes it.
    ///
    /// ```swift
    /// let value = try PreferenceValue(any: ["size": 12, "bold": true])
    /// ```
    ///
    /// - throws: ``/StashCore/StashError/Code/unsupportedValue`` for `nil`, a type that cannot be stored,
    ///   or a collection containing one.
    public init(any value: Any) throws {
        switch value {
        case let value as PreferenceValue: self = value
        case let value as PropertyList: self = PreferenceValue(value)
        case let value as Bool: self = .bool(value)
        case let value as any PreferenceStorableInteger:
            guard let stored = try value.preferenceValue() else { throw PreferenceValue.unsupported(value) }
            self = stored
        case let value as Double: self = .double(value)
        case let value as Float: self = .float(value)
        case let value as String: self = .string(value)
        case let value as Date: self = .date(value)
        case let value as Data: self = .data(value)
        case let value as URL: self = .url(value)
        case let value as UUID: self = .uuid(value)
        case let value as [Any]: self = .array(try value.map { try PreferenceValue(any: $0) })
        case let value as [String: Any]: self = .dictionary(try value.mapValues { try PreferenceValue(any: $0) })
        default:
            throw PreferenceValue.unsupported(value)
        }
    }

    private static func unsupported(_ value: Any) -> StashError {
        let type = String(describing: Swift.type(of: value))
        return StashError(.unsupportedValue, "a value of type \(type) cannot be stored in preferences")
    }

    /// The value as it is stored in a property list (UserDefaults' own format).
    ///
    /// URLs and UUIDs become strings, JSON becomes its text, and unsigned integers above
    /// `Int64.max` become reals, since property lists have no such types.
    public var propertyList: PropertyList {
        switch self {
        case .bool(let value): .bool(value)
        case .integer(let value): .integer(value)
        case .unsignedInteger(let value): .real(Double(value))
        case .double(let value): .real(value)
        case .float(let value): .real(Double(value))
        case .string(let value): .string(value)
        case .date(let value): .date(value)
        case .data(let value): .data(value)
        case .url(let value): .string(value.absoluteString)
        case .uuid(let value): .string(value.uuidString)
        case .array(let values): .array(values.map(\.propertyList))
        case .dictionary(let values): .dictionary(values.mapValues(\.propertyList))
        case .json(let value): .string(String(decoding: value, as: UTF8.self))
        }
    }

    /// The value of a property list entry.
    public init(_ propertyList: PropertyList) {
        switch propertyList {
        case .bool(let value): self = .bool(value)
        case .integer(let value): self = .integer(value)
        case .real(let value): self = .double(value)
        case .string(let value): self = .string(value)
        case .date(let value): self = .date(value)
        case .data(let value): self = .data(value)
        case .array(let values): self = .array(values.map(PreferenceValue.init))
        case .dictionary(let values): self = .dictionary(values.mapValues(PreferenceValue.init))
        }
    }
}
