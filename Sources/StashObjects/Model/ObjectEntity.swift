import Foundation

/// How a model is stored beyond its columns: table name, unique and indexed attributes,
/// default values, attributes searched with full text, relationships.
///
/// Build it with chained calls on key paths; it is checked when the store opens.
///
/// ```swift
/// struct Person: Model {
///     var id: Int64?
///     var name: String
///     var age: Int = 0
///     static let entity = ObjectEntity<Person>(table: "person")
///         .unique(\.name)
///         .indexed(\.age)
///         .defaultValue(\.age, 0)
/// }
/// ```
public struct ObjectEntity<M: Model>: Sendable {
    /// The table's name.
    public var table: String
    var uniqueColumns: [[String]] = []
    var indexedColumns: [[String]] = []
    var defaults: [String: ObjectStore.StoredValue] = [:]
    var fullTextColumns: [String] = []
    var relationships: [Relationship] = []
    /// Key paths that do not name a stored property, reported when the store opens.
    var unknownKeyPaths: [String] = []

    /// An entity stored in `table`, by default the type's name with a lowercase first letter.
    ///
    /// ```swift
    /// static let entity = ObjectEntity<Person>(table: "people")
    /// ```
    public init(table: String? = nil) {
        if let table {
            self.table = table
        } else {
            let name = String(describing: M.self)
            self.table = name.prefix(1).lowercased() + name.dropFirst()
        }
    }

    func names(_ keyPaths: [PartialKeyPath<M>]) -> ([String], [String]) {
        var names: [String] = []
        var unknown: [String] = []
        for keyPath in keyPaths {
            if let name = PropertyNames.name(of: keyPath) { names.append(name) } else { unknown.append("\(keyPath)") }
        }
        return (names, unknown)
    }

    /// The attributes, together, hold distinct values in every row (a `UNIQUE` index).
    /// Inserting a duplicate throws ``StashCore/StashError/Code/uniqueViolation``.
    ///
    /// ```swift
    /// .unique(\.email)
    /// ```
    public func unique(_ keyPaths: PartialKeyPath<M>...) -> Self {
        var copy = self
        let (names, unknown) = names(keyPaths)
        copy.uniqueColumns.append(names)
        copy.unknownKeyPaths += unknown
        return copy
    }

    /// An index on the attributes, together, for fast filters and sorts.
    ///
    /// ```swift
    /// .indexed(\.age)
    /// ```
    public func indexed(_ keyPaths: PartialKeyPath<M>...) -> Self {
        var copy = self
        let (names, unknown) = names(keyPaths)
        copy.indexedColumns.append(names)
        copy.unknownKeyPaths += unknown
        return copy
    }

    /// The column's SQL default: what rows written before the attribute existed get when a
    /// migration adds it, and what rows written by other programs get when they omit it.
    ///
    /// ```swift
    /// .defaultValue(\.age, 0)
    /// ```
    public func defaultValue<V: Storable>(_ keyPath: KeyPath<M, V>, _ value: V) -> Self {
        var copy = self
        if let name = PropertyNames.name(of: keyPath) {
            copy.defaults[name] = value.storedValue
        } else {
            copy.unknownKeyPaths.append("\(keyPath)")
        }
        return copy
    }

    /// The string attributes are searched with full text (SQLite FTS5, ranked): see
    /// ``ObjectReader/search(_:matching:limit:)``.
    ///
    /// ```swift
    /// .fullText(\.title, \.body)
    /// ```
    public func fullText(_ keyPaths: KeyPath<M, String>...) -> Self {
        var copy = self
        let (names, unknown) = names(keyPaths)
        copy.fullTextColumns += names
        copy.unknownKeyPaths += unknown
        return copy
    }
}
