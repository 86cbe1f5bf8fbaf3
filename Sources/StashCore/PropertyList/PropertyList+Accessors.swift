public import Foundation

extension PropertyList {
    /// The string, if this is a string.
    public var stringValue: String? { if case .string(let value) = self { value } else { nil } }
    /// The integer, if this is an integer.
    public var integerValue: Int64? { if case .integer(let value) = self { value } else { nil } }
    /// The number as a double, if this is a real or an integer.
    public var realValue: Double? {
        switch self {
        case .real(let value): value
        case .integer(let value): Double(value)
        default: nil
        }
    }
    /// The flag, if this is a Boolean.
    public var boolValue: Bool? { if case .bool(let value) = self { value } else { nil } }
    /// The date, if this is a date.
    public var dateValue: Date? { if case .date(let value) = self { value } else { nil } }
    /// The bytes, if this is data.
    public var dataValue: Data? { if case .data(let value) = self { value } else { nil } }
    /// The items, if this is an array.
    public var arrayValue: [PropertyList]? { if case .array(let value) = self { value } else { nil } }
    /// The entries, if this is a dictionary.
    public var dictionaryValue: [String: PropertyList]? { if case .dictionary(let value) = self { value } else { nil } }

    /// The value for `key` in a dictionary; `nil` for a missing key or a non-dictionary.
    /// Setting it on a dictionary adds, replaces or (with `nil`) removes the entry; setting
    /// it on anything else turns the value into a one-entry dictionary.
    ///
    /// ```swift
    /// var settings: PropertyList = ["volume": 0.8]
    /// settings["name"] = "Ada"
    /// settings["volume"]?.realValue // 0.8
    /// ```
    public subscript(key: String) -> PropertyList? {
        get { dictionaryValue?[key] }
        set {
            var entries = dictionaryValue ?? [:]
            entries[key] = newValue
            self = .dictionary(entries)
        }
    }

    /// The item at `index` of an array; `nil` when out of range or not an array.
    public subscript(index: Int) -> PropertyList? {
        guard let items = arrayValue, items.indices.contains(index) else { return nil }
        return items[index]
    }

    /// The name of the value's type, for messages: `string`, `integer`, `dictionary`…
    public var typeName: String {
        switch self {
        case .string: "string"
        case .integer: "integer"
        case .real: "real"
        case .bool: "bool"
        case .date: "date"
        case .data: "data"
        case .array: "array"
        case .dictionary: "dictionary"
        }
    }
}

/// Literals build values directly: `let value: PropertyList = ["name": "Ada", "tags": ["a"], "ratio": 0.5]`.
extension PropertyList: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .real(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: PropertyList...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, PropertyList)...) {
        self = .dictionary(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
