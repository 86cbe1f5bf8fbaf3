public import Foundation

/// A value that queries compare with a column: integers, `Bool`, `Double`, `Float`,
/// `String`, `Data`, `Date` (seconds since 1970, `REAL`), `UUID` (its `uuidString`), `URL`
/// (its absolute string), optionals of these, and `RawRepresentable` enums that declare the
/// conformance.
///
/// ```swift
/// enum Mood: String, Codable, Storable { case happy, sad }
/// let query = Person.all.filter(\.mood == .happy)
/// ```
public protocol Storable: Sendable {
    /// The value as stored in its column.
    var storedValue: ObjectStore.StoredValue { get }
    /// The value a column holds, or `nil` when it does not fit this type.
    init?(storedValue: ObjectStore.StoredValue)
}

extension Int: Storable {
    public var storedValue: ObjectStore.StoredValue { .integer(Int64(self)) }
    public init?(storedValue: ObjectStore.StoredValue) {
        guard case .integer(let value) = storedValue, let fitted = Self(exactly: value) else { return nil }
        self = fitted
    }
}
extension Int8: Storable {
    public var storedValue: ObjectStore.StoredValue { .integer(Int64(self)) }
    public init?(storedValue: ObjectStore.StoredValue) {
        guard case .integer(let value) = storedValue, let fitted = Self(exactly: value) else { return nil }
        self = fitted
    }
}
extension Int16: Storable {
    public var storedValue: ObjectStore.StoredValue { .integer(Int64(self)) }
    public init?(storedValue: ObjectStore.StoredValue) {
        guard case .integer(let value) = storedValue, let fitted = Self(exactly: value) else { return nil }
        self = fitted
    }
}
extension Int32: Storable {
    public var storedValue: ObjectStore.StoredValue { .integer(Int64(self)) }
    public init?(storedValue: ObjectStore.StoredValue) {
        guard case .integer(let value) = storedValue, let fitted = Self(exactly: value) else { return nil }
        self = fitted
    }
}
extension Int64: Storable {
    public var storedValue: ObjectStore.StoredValue { .integer(self) }
    public init?(storedValue: ObjectStore.StoredValue) {
        guard case .integer(let value) = storedValue else { return nil }
        self = value
    }
}
extension UInt8: Storable {
    public var storedValue: ObjectStore.StoredValue { .integer(Int64(self)) }
    public init?(storedValue: ObjectStore.StoredValue) {
        guard case .integer(let value) = storedValue, let fitted = Self(exactly: value) else { return nil }
        self = fitted
    }
}
extension UInt16: Storable {
    public var storedValue: ObjectStore.StoredValue { .integer(Int64(self)) }
    public init?(storedValue: ObjectStore.StoredValue) {
        guard case .integer(let value) = storedValue, let fitted = Self(exactly: value) else { return nil }
        self = fitted
    }
}
extension UInt32: Storable {
    public var storedValue: ObjectStore.StoredValue { .integer(Int64(self)) }
    public init?(storedValue: ObjectStore.StoredValue) {
        guard case .integer(let value) = storedValue, let fitted = Self(exactly: value) else { return nil }
        self = fitted
    }
}
// 64-bit unsigned values are stored as SQLite integers up to `Int64.max`; a row holding a
// larger one is refused when it is written (as GRDB does), never stored as a negative bit
// pattern that filters and sorts would order wrong. In a filter, a larger value compares as
// the real number it is, so that `\.size < UInt64.max` holds for every stored row.
extension UInt: Storable {
    public var storedValue: ObjectStore.StoredValue { UInt64(self).storedValue }
    public init?(storedValue: ObjectStore.StoredValue) {
        guard case .integer(let value) = storedValue, let fitted = UInt(exactly: value) else { return nil }
        self = fitted
    }
}
extension UInt64: Storable {
    public var storedValue: ObjectStore.StoredValue { self <= UInt64(Int64.max) ? .integer(Int64(self)) : .real(Double(self)) }
    public init?(storedValue: ObjectStore.StoredValue) {
        guard case .integer(let value) = storedValue, let fitted = UInt64(exactly: value) else { return nil }
        self = fitted
    }
}
extension Bool: Storable {
    public var storedValue: ObjectStore.StoredValue { .integer(self ? 1 : 0) }
    public init?(storedValue: ObjectStore.StoredValue) {
        guard case .integer(let value) = storedValue else { return nil }
        self = value != 0
    }
}
extension Double: Storable {
    public var storedValue: ObjectStore.StoredValue { .real(self) }
    public init?(storedValue: ObjectStore.StoredValue) {
        switch storedValue {
        case .real(let value): self = value
        case .integer(let value): self = Double(value)
        default: return nil
        }
    }
}
extension Float: Storable {
    public var storedValue: ObjectStore.StoredValue { .real(Double(self)) }
    public init?(storedValue: ObjectStore.StoredValue) {
        guard let value = Double(storedValue: storedValue) else { return nil }
        self = Float(value)
    }
}
extension String: Storable {
    public var storedValue: ObjectStore.StoredValue { .text(self) }
    public init?(storedValue: ObjectStore.StoredValue) {
        guard case .text(let value) = storedValue else { return nil }
        self = value
    }
}
extension Data: Storable {
    public var storedValue: ObjectStore.StoredValue { .blob(self) }
    public init?(storedValue: ObjectStore.StoredValue) {
        switch storedValue {
        case .blob(let value): self = value
        case .text(let value): self = Data(value.utf8)
        default: return nil
        }
    }
}
extension Date: Storable {
    public var storedValue: ObjectStore.StoredValue { .real(timeIntervalSince1970) }
    public init?(storedValue: ObjectStore.StoredValue) {
        guard let value = Double(storedValue: storedValue) else { return nil }
        self = Date(timeIntervalSince1970: value)
    }
}
extension UUID: Storable {
    public var storedValue: ObjectStore.StoredValue { .text(uuidString) }
    public init?(storedValue: ObjectStore.StoredValue) {
        guard case .text(let value) = storedValue, let uuid = UUID(uuidString: value) else { return nil }
        self = uuid
    }
}
extension URL: Storable {
    public var storedValue: ObjectStore.StoredValue { .text(absoluteString) }
    public init?(storedValue: ObjectStore.StoredValue) {
        guard case .text(let value) = storedValue, let url = URL(string: value) else { return nil }
        self = url
    }
}

extension Optional: Storable where Wrapped: Storable {
    public var storedValue: ObjectStore.StoredValue { self?.storedValue ?? .null }
    public init?(storedValue: ObjectStore.StoredValue) {
        if storedValue == .null {
            self = .none
        } else if let value = Wrapped(storedValue: storedValue) {
            self = .some(value)
        } else {
            return nil
        }
    }
}

extension Storable where Self: RawRepresentable, RawValue: Storable {
    public var storedValue: ObjectStore.StoredValue { rawValue.storedValue }
    public init?(storedValue: ObjectStore.StoredValue) {
        guard let raw = RawValue(storedValue: storedValue) else { return nil }
        self.init(rawValue: raw)
    }
}
