@_exported public import StashObjects

/// Makes a struct a ``/StashObjects/Model`` that reads its own rows: it writes the
/// ``/StashObjects/ColumnDecodable`` conformance (`init(row:)`) a fast model would otherwise
/// write by hand, so that fetching many objects costs what a hand-written GRDB record costs.
///
/// ```swift
/// import StashObjectsMacros
///
/// @Model
/// struct Person {
///     var id: Int64?
///     var name: String
///     var age: Int
///     var nickname: String?          // NULL reads as nil
///     var mood: Mood                 // a raw-value enum
///     var address: Address           // any other Codable value, stored as JSON
///
///     static let entity = ObjectEntity<Person>(table: "person").unique(\.name)
/// }
/// ```
///
/// The macro adds, in an extension, the conformances the struct does not declare yet
/// (``/StashObjects/Model`` and ``/StashObjects/ColumnDecodable``; `Model` brings `Codable`,
/// synthesized as usual) and an `init(row:)` that reads every stored attribute by its
/// `CodingKeys` string, in declaration order:
///
/// ```swift
/// extension Person: StashObjects.Model, StashObjects.ColumnDecodable {
///     init(row: StashObjects.ObjectRow) throws {
///         self.id = try row.value(CodingKeys.id.stringValue)
///         self.name = try row.value(CodingKeys.name.stringValue)
///         // …
///     }
///     static var columnNames: [PartialKeyPath<Self>: String] {
///         [\.id: CodingKeys.id.stringValue, \.name: CodingKeys.name.stringValue, /* … */]
///     }
/// }
/// ```
///
/// It reads what the `Codable` path reads. Without `CodingKeys`, or with `CodingKeys`
/// declared in an extension, every stored property is a column under its key's string
/// (`case createdAt = "created_at"` reads column `created_at`). When the struct body declares
/// `CodingKeys`, only the properties it names are columns; a property left out keeps its
/// default value. Computed, `static` and `let`-with-a-value properties are not columns.
///
/// ``/StashObjects/Model/columnNames`` gives key paths their columns, so queries, sorts,
/// `unique`, `indexed` and relationships name a renamed property by its key path as any
/// other (`Note.query().sorted(\.createdAt)` sorts on `created_at`). The macro writes it
/// beside a hand-written `init(row:)` or `init(from:)` too, from the `CodingKeys` the body
/// declares, and leaves out a `columnNames` the struct declares itself.
///
/// The macro sees only the struct's own body, so write these there:
/// - a custom `init(from:)`: in the body, the macro leaves the model on the `Codable` path
///   (no `init(row:)`) so that the custom decoding runs; in an extension, the macro does not
///   see it and its `init(row:)` reads the columns without it.
/// - `CodingKeys` that leave a property out: in an extension, the generated `init(row:)`
///   still names every stored property, and the left-out one is a compile error
///   (`type 'CodingKeys' has no member …`).
///
/// ```swift
/// @Model
/// struct Note {
///     var id: UUID
///     var createdAt: Date
/// }
/// extension Note {
///     enum CodingKeys: String, CodingKey {   // honoured: init(row:) reads created_at
///         case id
///         case createdAt = "created_at"
///     }
/// }
/// ```
///
/// Errors at compile time: the macro on a class, an enum or an actor (models are structs);
/// a `CodingKeys` case that names no stored property (a computed one, a typo); a `lazy` or
/// property-wrapped attribute (any capitalized attribute but `@MainActor`, since a wrapper
/// cannot be told from it by its spelling); a stored property inside `#if` that is a column
/// (without `CodingKeys` in the body, or named by them: move it out, or write `init(row:)`
/// yourself); a tuple pattern (`var (a, b): (Int, Int)`, except a `let`
/// with its value); a struct without a stored `id` property. At run time the read throws the
/// same typed errors as the `Codable` path (`StashError.Code.typeMismatch` naming model and
/// attribute).
///
/// For each named relationship the struct declares as a static property with its types
/// written out (`static let card = ToOne<Person, Card>("card", inverse: "person")`, or
/// `static let card: ToOne<Person, Card> = …`), it writes the instance property that reads
/// it: `var card: RelatedObject<Card> { related(Self.card) }` (`RelatedObjects` for a
/// `ToMany`), unless the body declares one of that name. `try reader.fetch(person.card)`
/// then reads the card.
///
/// The macro lives in its own library, `StashObjectsMacros`, because it compiles
/// swift-syntax: an app that writes its models as plain `Codable` structs conforming to
/// ``/StashObjects/Model`` does not depend on it (and fetches slower).
@attached(extension, conformances: StashObjects.Model, StashObjects.ColumnDecodable, names: named(init(row:)), named(columnNames), arbitrary)
public macro Model() = #externalMacro(module: "StashObjectsMacroPlugin", type: "ModelMacro")
