import Foundation

/// A type whose values StashObjects stores as the rows of one table.
///
/// A model is a struct that is `Codable`: its stored properties (the ones its `CodingKeys`
/// name) are its columns, in declaration order. Every integer type, `Bool`, `Double`,
/// `Float`, `String`, `Data`, `Date`, `UUID`, `URL`, `RawRepresentable` enums, optionals of
/// these, and any other `Codable` value (stored as JSON text) can be a column. A property
/// left out of `CodingKeys` (with a default value) is not stored.
///
/// The primary key is the `id` property: `Int64?` or `Int?` for an auto-incremented
/// integer (`nil` until inserted), or a `UUID` or `String` chosen by you.
///
/// The `@Model` macro (library `StashObjectsMacros`) adds this conformance and writes the
/// model's ``ColumnDecodable`` `init(row:)`, which fetches faster than `Codable` decoding:
/// `@Model struct Person { … }`. Without it, conform by hand as below.
///
/// ```swift
/// struct Person: Model {
///     var id: Int64?
///     var name: String
///     var age: Int
///     static let entity = ObjectEntity<Person>(table: "person").unique(\.name).indexed(\.age)
/// }
/// ```
public protocol Model: Codable, Sendable {
    /// The primary key's type: `Int64?`, `Int?`, `UUID` or `String`.
    associatedtype ID: ModelID
    /// The primary key.
    var id: ID { get set }
    /// Table name, unique and indexed attributes, defaults, full-text attributes and
    /// relationships. The default names the table after the type, with nothing else.
    static var entity: ObjectEntity<Self> { get }

    /// The column of each stored property whose `CodingKeys` raw value renames it, for the
    /// key paths of queries, sorts, `unique`, `indexed`, relationships and `updateAll`. A
    /// property without an entry is stored under its own name. `@Model` writes it (unless
    /// the struct declares it); a hand-written model whose `CodingKeys` rename columns fills
    /// it with the renamed properties, or a query on their key paths throws
    /// ``StashCore/StashError/Code/unknownAttribute`` (as does an entry naming no column). It is a pure
    /// static value, read once per type.
    ///
    /// ```swift
    /// struct Reading: Model {
    ///     var id: Int64?
    ///     var takenAt: Date
    ///     enum CodingKeys: String, CodingKey { case id, takenAt = "taken_at" }
    ///     static var columnNames: [PartialKeyPath<Self>: String] {
    ///         [\.takenAt: CodingKeys.takenAt.stringValue]      // "taken_at"
    ///     }
    /// }
    /// try store.fetch(Reading.query().sorted(\.takenAt))  // ORDER BY "taken_at"
    /// ```
    static var columnNames: [PartialKeyPath<Self>: String] { get }
}

extension Model {
    /// A table named after the type (`Person` -> `person`), no index, no relationship.
    ///
    /// ```swift
    /// struct Tag: Model { var id: String; var label: String }   // table "tag"
    /// ```
    public static var entity: ObjectEntity<Self> { ObjectEntity() }

    /// No renamed columns: key paths name the properties themselves.
    ///
    /// ```swift
    /// Tag.columnNames.isEmpty    // true unless Tag (or @Model) declares it
    /// ```
    public static var columnNames: [PartialKeyPath<Self>: String] { [:] }
}
