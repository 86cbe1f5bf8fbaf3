public import Foundation
import StashCore

/// A Swift type that a preferences store keeps natively (without going through JSON).
///
/// Bool, the integer types, Double, Float, String, Date, Data, URL, UUID, arrays and
/// string-keyed dictionaries of those, and optionals of those conform. Any other `Codable`
/// type can still be stored: ``Preferences/Key`` encodes it as JSON.
///
/// ```swift
/// let volume = Preferences.Key("volume", default: 0.8)       // Double: PreferenceStorable
/// let tags = Preferences.Key("tags", default: [String]())    // [String]: PreferenceStorable
/// ```
public protocol PreferenceStorable: Codable, Sendable {
    /// Converts a stored value back, accepting the lossless conversions UserDefaults accepts
    /// (an integer read as a Double, a string read as a URL).
    ///
    /// - throws: ``/StashCore/StashError/Code/typeMismatch`` when the stored value has another type.
    init(preferenceValue: PreferenceValue) throws

    /// The value to store; `nil` (only from an empty optional) removes the key.
    ///
    /// - throws: ``/StashCore/StashError/Code/unsupportedValue`` for a value that cannot be stored
    ///   (a `nil` inside an array, say).
    func preferenceValue() throws -> PreferenceValue?
}

extension PreferenceValue {
    static func mismatch(_ stored: PreferenceValue, _ type: Any.Type) -> StashError {
        StashError(.typeMismatch, "a stored \(stored.typeName) cannot be read as \(type)")
    }
}

extension Bool: PreferenceStorable {
    public init(preferenceValue: PreferenceValue) throws {
        switch preferenceValue {
        case .bool(let value): self = value
        case .integer(let value) where value == 0 || value == 1: self = value == 1
        default: throw PreferenceValue.mismatch(preferenceValue, Bool.self)
        }
    }
    public func preferenceValue() -> PreferenceValue? { .bool(self) }
}

/// The integer types share one conversion: exact, or a type mismatch.
package protocol PreferenceStorableInteger: PreferenceStorable, FixedWidthInteger {}

extension PreferenceStorableInteger {
    public init(preferenceValue: PreferenceValue) throws {
        let converted: Self?
        switch preferenceValue {
        case .integer(let value): converted = Self(exactly: value)
        case .unsignedInteger(let value): converted = Self(exactly: value)
        case .double(let value): converted = Self(exactly: value)
        case .float(let value): converted = Self(exactly: value)
        case .bool(let value): converted = value ? 1 : 0
        default: converted = nil
        }
        guard let converted else { throw PreferenceValue.mismatch(preferenceValue, Self.self) }
        self = converted
    }

    public func preferenceValue() -> PreferenceValue? {
        if let signed = Int64(exactly: self) { return .integer(signed) }
        return .unsignedInteger(UInt64(self))
    }
}

extension Int: PreferenceStorableInteger {}
extension Int8: PreferenceStorableInteger {}
extension Int16: PreferenceStorableInteger {}
extension Int32: PreferenceStorableInteger {}
extension Int64: PreferenceStorableInteger {}
extension UInt: PreferenceStorableInteger {}
extension UInt8: PreferenceStorableInteger {}
extension UInt16: PreferenceStorableInteger {}
extension UInt32: PreferenceStorableInteger {}
extension UInt64: PreferenceStorableInteger {}

extension Double: PreferenceStorable {
    public init(preferenceValue: PreferenceValue) throws {
        switch preferenceValue {
        case .double(let value): self = value
        case .float(let value): self = Double(value)
        case .integer(let value): self = Double(value)
        case .unsignedInteger(let value): self = Double(value)
        default: throw PreferenceValue.mismatch(preferenceValue, Double.self)
        }
    }
    public func preferenceValue() -> PreferenceValue? { .double(self) }
}

extension Float: PreferenceStorable {
    public init(preferenceValue: PreferenceValue) throws {
        switch preferenceValue {
        case .float(let value): self = value
        case .double(let value): self = Float(value)
        case .integer(let value): self = Float(value)
        case .unsignedInteger(let value): self = Float(value)
        default: throw PreferenceValue.mismatch(preferenceValue, Float.self)
        }
    }
    public func preferenceValue() -> PreferenceValue? { .float(self) }
}

extension String: PreferenceStorable {
    public init(preferenceValue: PreferenceValue) throws {
        switch preferenceValue {
        case .string(let value): self = value
        case .url(let value): self = value.absoluteString
        case .uuid(let value): self = value.uuidString
        default: throw PreferenceValue.mismatch(preferenceValue, String.self)
        }
    }
    public func preferenceValue() -> PreferenceValue? { .string(self) }
}

extension Date: PreferenceStorable {
    public init(preferenceValue: PreferenceValue) throws {
        guard case .date(let value) = preferenceValue else { throw PreferenceValue.mismatch(preferenceValue, Date.self) }
        self = value
    }
    public func preferenceValue() -> PreferenceValue? { .date(self) }
}

extension Data: PreferenceStorable {
    public init(preferenceValue: PreferenceValue) throws {
        switch preferenceValue {
        case .data(let value), .json(let value): self = value
        default: throw PreferenceValue.mismatch(preferenceValue, Data.self)
        }
    }
    public func preferenceValue() -> PreferenceValue? { .data(self) }
}

extension URL: PreferenceStorable {
    public init(preferenceValue: PreferenceValue) throws {
        switch preferenceValue {
        case .url(let value): self = value
        case .string(let value):
            guard let url = URL(string: value) else { throw PreferenceValue.mismatch(preferenceValue, URL.self) }
            self = url
        default: throw PreferenceValue.mismatch(preferenceValue, URL.self)
        }
    }
    public func preferenceValue() -> PreferenceValue? { .url(self) }
}

extension UUID: PreferenceStorable {
    public init(preferenceValue: PreferenceValue) throws {
        switch preferenceValue {
        case .uuid(let value): self = value
        case .string(let value):
            guard let uuid = UUID(uuidString: value) else { throw PreferenceValue.mismatch(preferenceValue, UUID.self) }
            self = uuid
        default: throw PreferenceValue.mismatch(preferenceValue, UUID.self)
        }
    }
    public func preferenceValue() -> PreferenceValue? { .uuid(self) }
}

extension Array: PreferenceStorable where Element: PreferenceStorable {
    public init(preferenceValue: PreferenceValue) throws {
        guard case .array(let values) = preferenceValue else { throw PreferenceValue.mismatch(preferenceValue, Self.self) }
        self = try values.map { try Element(preferenceValue: $0) }
    }
    public func preferenceValue() throws -> PreferenceValue? {
        .array(try map { element in
            guard let value = try element.preferenceValue() else {
                throw StashError(.unsupportedValue, "an array may not contain nil")
            }
            return value
        })
    }
}

extension Dictionary: PreferenceStorable where Key == String, Value: PreferenceStorable {
    public init(preferenceValue: PreferenceValue) throws {
        guard case .dictionary(let values) = preferenceValue else { throw PreferenceValue.mismatch(preferenceValue, Self.self) }
        self = try values.mapValues { try Value(preferenceValue: $0) }
    }
    public func preferenceValue() throws -> PreferenceValue? {
        .dictionary(try mapValues { element in
            guard let value = try element.preferenceValue() else {
                throw StashError(.unsupportedValue, "a dictionary may not contain nil")
            }
            return value
        })
    }
}

extension Optional: PreferenceStorable where Wrapped: PreferenceStorable {
    public init(preferenceValue: PreferenceValue) throws {
        self = .some(try Wrapped(preferenceValue: preferenceValue))
    }
    public func preferenceValue() throws -> PreferenceValue? {
        try self?.preferenceValue()
    }
}
