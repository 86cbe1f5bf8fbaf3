/// A model that reads its own columns: the fast path for fetching many objects, which the
/// `@Model` macro (library `StashObjectsMacros`) writes for you.
///
/// A ``Model`` is decoded through its `Codable` `init(from:)`, which costs a call through the
/// standard library's keyed container for every attribute of every row. A model that also
/// conforms to `ColumnDecodable` is read by its `init(row:)` instead: one direct, typed read
/// per attribute, as fast as a GRDB record written by hand (`stash-bench objects`, case
/// `fetch`). The model stays `Codable`: its columns, writes, contexts and JSON export still
/// come from `Codable`, so `init(row:)` must read the same attributes `init(from:)` does,
/// each by the name of its column (best in declaration order, which is the `SELECT` order).
///
/// ```swift
/// struct Reading: Model, ColumnDecodable {
///     var id: Int64?
///     var sensor: String
///     var value: Double
///     var takenAt: Date
///
///     init(row: ObjectRow) throws {
///         id = try row.value("id")
///         sensor = try row.value("sensor")
///         value = try row.value("value")
///         takenAt = try row.value("takenAt")
///     }
/// }
/// ```
///
/// A name that is not a stored attribute throws ``StashCore/StashError/Code/unknownAttribute``; a
/// stored value that does not fit the property throws ``/StashCore/StashError/Code/typeMismatch``
/// naming model and attribute, as the `Codable` path does. A model whose `CodingKeys`
/// rename columns also says so in ``Model/columnNames``, for the key paths of its queries.
public protocol ColumnDecodable: Model {
    /// Reads the model from the row the store stands on.
    init(row: ObjectRow) throws
}

/// Reads models of one type through ``ColumnDecodable/init(row:)``, set up once per
/// statement (the dynamic check whether a model is `ColumnDecodable` is not made per row).
final class ColumnDecodablePath<M: Model> {
    let read: (ObjectRow) throws -> M

    private init(read: @escaping (ObjectRow) throws -> M) { self.read = read }

    /// The fast path of `M`, or `nil` when `M` is not `ColumnDecodable`.
    static func of(_ type: M.Type) -> ColumnDecodablePath<M>? {
        guard let fast = M.self as? any ColumnDecodable.Type else { return nil }
        return opening(fast)
    }

    private static func opening<F: ColumnDecodable>(_ type: F.Type) -> ColumnDecodablePath<M>? {
        let read: (ObjectRow) throws -> F = { try F(row: $0) }
        guard let typed = read as? (ObjectRow) throws -> M else { return nil }
        return ColumnDecodablePath(read: typed)
    }
}
