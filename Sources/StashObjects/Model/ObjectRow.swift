import Foundation

/// The row a ``ColumnDecodable`` model reads itself from, valid only during its
/// `init(row:)`. Each `value(_:)` reads one attribute by its column's name (the property's
/// name, or its `CodingKeys` string), typed by what it is assigned to.
///
/// ```swift
/// init(row: ObjectRow) throws {
///     id = try row.value("id")
///     name = try row.value("name")
///     nickname = try row.value("nickname")     // String?: NULL reads as nil
///     kind = try row.value("kind")             // a raw-value enum, a Date, a UUID, JSON…
/// }
/// ```
///
/// Reads in declaration order cost one comparison of names each; any other order works too,
/// through a dictionary.
public struct ObjectRow {
    let decoder: RowDecoder

    init(_ decoder: RowDecoder) { self.decoder = decoder }

    private func index(_ name: String) throws -> Int32 { try decoder.index(named: name) }

    /// An integer attribute; a stored value out of `Int`'s range (on a 32-bit platform) is a
    /// type mismatch, not a trap.
    ///
    /// ```swift
    /// age = try row.value("age")
    /// ```
    public func value(_ name: String) throws -> Int { try decoder.integer(index(name), as: Int.self) }
    /// A 64-bit integer attribute (an auto-incremented id is `Int64?`).
    ///
    /// ```swift
    /// bytes = try row.value("bytes")          // Int64
    /// ```
    public func value(_ name: String) throws -> Int64 { try decoder.integer(index(name)) }
    /// A 32-bit integer attribute; a stored value out of its range is a type mismatch.
    ///
    /// ```swift
    /// port = try row.value("port")            // Int32
    /// ```
    public func value(_ name: String) throws -> Int32 { try decoder.integer(index(name), as: Int32.self) }
    /// An unsigned 64-bit attribute (stored as its bit pattern).
    ///
    /// ```swift
    /// checksum = try row.value("checksum")    // UInt64
    /// ```
    public func value(_ name: String) throws -> UInt64 { try decoder.integer(index(name), as: UInt64.self) }
    /// A Boolean attribute (stored as 0 or 1).
    ///
    /// ```swift
    /// isDone = try row.value("isDone")
    /// ```
    public func value(_ name: String) throws -> Bool { try decoder.integer(index(name)) != 0 }
    /// A floating-point attribute (an integer stored by another program reads too).
    ///
    /// ```swift
    /// price = try row.value("price")          // Double
    /// ```
    public func value(_ name: String) throws -> Double { try decoder.real(index(name)) }
    /// A text attribute.
    ///
    /// ```swift
    /// name = try row.value("name")
    /// ```
    public func value(_ name: String) throws -> String { try decoder.string(index(name)) }

    /// An optional integer attribute: `nil` for NULL.
    ///
    /// ```swift
    /// id = try row.value("id")
    /// ```
    public func value(_ name: String) throws -> Int? { try decoder.optional(index(name)) { try $0.integer($1, as: Int.self) } }
    /// An optional 64-bit integer attribute: `nil` for NULL.
    ///
    /// ```swift
    /// parentID = try row.value("parentID")    // Int64?
    /// ```
    public func value(_ name: String) throws -> Int64? { try decoder.optional(index(name)) { try $0.integer($1) } }
    /// An optional Boolean attribute: `nil` for NULL.
    ///
    /// ```swift
    /// isPinned = try row.value("isPinned")    // Bool?
    /// ```
    public func value(_ name: String) throws -> Bool? { try decoder.optional(index(name)) { try $0.integer($1) != 0 } }
    /// An optional floating-point attribute: `nil` for NULL.
    ///
    /// ```swift
    /// rating = try row.value("rating")        // Double?
    /// ```
    public func value(_ name: String) throws -> Double? { try decoder.optional(index(name)) { try $0.real($1) } }
    /// An optional text attribute: `nil` for NULL.
    ///
    /// ```swift
    /// nickname = try row.value("nickname")    // String?
    /// ```
    public func value(_ name: String) throws -> String? { try decoder.optional(index(name)) { try $0.string($1) } }

    /// Any other attribute, stored as the `Codable` path stores it: other integer widths,
    /// `Float`, `Data`, `Date`, `UUID`, `URL`, raw-value enums, JSON for the rest, and
    /// optionals of these (`nil` for NULL; NULL for any other type, even one that is
    /// `ExpressibleByNilLiteral`, is a ``/StashCore/StashError/Code/typeMismatch``).
    ///
    /// ```swift
    /// createdAt = try row.value("createdAt")
    /// mood = try row.value("mood")           // Mood?
    /// ```
    public func value<T: Decodable>(_ name: String) throws -> T {
        let index = try index(name)
        if decoder.isNull(index) {
            // Only an `Optional` reads NULL as `nil`, as on the `Codable` path: another type
            // that is `ExpressibleByNilLiteral` gets a type mismatch there and here.
            guard let optional = T.self as? any NullableAttribute.Type, let none = optional.null as? T else {
                throw decoder.mismatch(index, "a value")
            }
            return none
        }
        return try decoder.value(T.self, at: index)
    }
}

/// `Optional`, told apart from other types in generic code.
private protocol NullableAttribute {
    static var null: Self { get }
}

extension Optional: NullableAttribute {
    fileprivate static var null: Self { nil }
}
