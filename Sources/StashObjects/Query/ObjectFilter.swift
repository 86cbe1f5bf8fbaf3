import Foundation

/// A condition on a model's attributes, type-checked against the model: build it with
/// operators on key paths and the static functions below, combine with `&&`, `||`, `!`.
///
/// ```swift
/// let adults = Person.query().filter(\.age >= 18 && .like(\.name, "*Itcast-1*"))
/// let some = Person.query().filter(.in(\.age, [20, 30]) || \.nickname == nil)
/// ```
///
/// An attribute that is not stored (left out of `CodingKeys`, or a computed property) makes
/// the query throw ``StashCore/StashError/Code/unknownAttribute`` when it runs.
public struct ObjectFilter<M: Model>: Sendable {
    /// SQL with `?` placeholders; columns unqualified (they resolve to the model's table,
    /// also inside the sub-selects of relationship filters).
    var sql: String
    var arguments: [ObjectStore.StoredValue]
    /// Key paths that name no stored attribute, reported when the query runs.
    var unknown: [String]
    /// The model's own attributes the filter names (not those inside relationship sub-selects).
    var columns: [String]

    init(sql: String, arguments: [ObjectStore.StoredValue] = [], unknown: [String] = [], columns: [String] = []) {
        self.sql = sql
        self.arguments = arguments
        self.unknown = unknown
        self.columns = columns
    }

    /// A filter that every object passes.
    ///
    /// ```swift
    /// let everyone = Person.query().filter(.all)
    /// ```
    public static var all: Self { Self(sql: "1") }

    static func column(_ keyPath: PartialKeyPath<M>) -> (String, [String], [String]) {
        if let name = PropertyNames.name(of: keyPath) { return (SQL.quote(name), [], [name]) }
        return ("NULL", ["\(keyPath)"], [])
    }

    static func compare(_ keyPath: PartialKeyPath<M>, _ op: String, _ value: ObjectStore.StoredValue) -> Self {
        let (column, unknown, names) = column(keyPath)
        if value == .null {
            switch op {
            case "=": return Self(sql: "\(column) IS NULL", unknown: unknown, columns: names)
            case "<>": return Self(sql: "\(column) IS NOT NULL", unknown: unknown, columns: names)
            default: return Self(sql: "0", unknown: unknown, columns: names)
            }
        }
        return Self(sql: "\(column) \(op) ?", arguments: [value], unknown: unknown, columns: names)
    }

    /// The attribute is one of `values`.
    ///
    /// ```swift
    /// .in(\.age, [20, 30, 40])
    /// ```
    public static func `in`<V: Storable>(_ keyPath: KeyPath<M, V>, _ values: some Sequence<V>) -> Self {
        let (column, unknown, names) = column(keyPath)
        let stored = values.map(\.storedValue)
        guard !stored.isEmpty else { return Self(sql: "0", unknown: unknown, columns: names) }
        let nulls = stored.contains(.null)
        let present = stored.filter { $0 != .null }
        var parts: [String] = []
        if !present.isEmpty { parts.append("\(column) IN (\(Array(repeating: "?", count: present.count).joined(separator: ", ")))") }
        if nulls { parts.append("\(column) IS NULL") }
        return Self(sql: parts.joined(separator: " OR "), arguments: present, unknown: unknown, columns: names)
    }

    /// The attribute lies in `range`, bounds included (SQL `BETWEEN`).
    ///
    /// ```swift
    /// .between(\.age, 20...30)
    /// ```
    public static func between<V: Storable & Comparable>(_ keyPath: KeyPath<M, V>, _ range: ClosedRange<V>) -> Self {
        let (column, unknown, names) = column(keyPath)
        return Self(sql: "\(column) BETWEEN ? AND ?", arguments: [range.lowerBound.storedValue, range.upperBound.storedValue], unknown: unknown, columns: names)
    }

    /// The optional attribute is `nil`.
    ///
    /// ```swift
    /// .isNil(\.nickname)
    /// ```
    public static func isNil<V: Storable>(_ keyPath: KeyPath<M, V?>) -> Self {
        let (column, unknown, names) = column(keyPath)
        return Self(sql: "\(column) IS NULL", unknown: unknown, columns: names)
    }

    /// The string attribute matches `pattern`, where `*` is any run of characters and `?`
    /// one character, as in `NSPredicate`'s `LIKE`. Case-sensitive unless
    /// `caseInsensitive`, diacritic-sensitive unless `diacriticInsensitive`: both fold
    /// every script, not only ASCII (`NSPredicate`'s `[cd]`: `"Émile"` matches `"emile"`,
    /// `"Straße"` matches `"STRASSE"`), through the store's `stash_fold` SQL function.
    ///
    /// ```swift
    /// .like(\.name, "*Itcast-1*")
    /// .like(\.name, "jos?*", caseInsensitive: true, diacriticInsensitive: true)   // José, JOSEPH
    /// ```
    public static func like<V: Storable>(_ keyPath: KeyPath<M, V>, _ pattern: String, caseInsensitive: Bool = false, diacriticInsensitive: Bool = false) -> Self {
        var glob = ""
        for character in pattern {
            switch character {
            case "*", "?": glob.append(character)
            default: glob += Self.escapeGlob(character)
            }
        }
        return match(keyPath, glob: glob, folding: TextFolding.options(caseInsensitive, diacriticInsensitive))
    }

    /// The string attribute contains `text`.
    ///
    /// ```swift
    /// .contains(\.name, "cast", caseInsensitive: true)
    /// ```
    public static func contains<V: Storable>(_ keyPath: KeyPath<M, V>, _ text: String, caseInsensitive: Bool = false, diacriticInsensitive: Bool = false) -> Self {
        literal(keyPath, text, prefix: true, suffix: true, folding: TextFolding.options(caseInsensitive, diacriticInsensitive))
    }

    /// The string attribute starts with `text`.
    ///
    /// ```swift
    /// .hasPrefix(\.name, "Itcast")
    /// ```
    public static func hasPrefix<V: Storable>(_ keyPath: KeyPath<M, V>, _ text: String, caseInsensitive: Bool = false, diacriticInsensitive: Bool = false) -> Self {
        literal(keyPath, text, prefix: false, suffix: true, folding: TextFolding.options(caseInsensitive, diacriticInsensitive))
    }

    /// The string attribute ends with `text`.
    ///
    /// ```swift
    /// .hasSuffix(\.email, "@example.com")
    /// ```
    public static func hasSuffix<V: Storable>(_ keyPath: KeyPath<M, V>, _ text: String, caseInsensitive: Bool = false, diacriticInsensitive: Bool = false) -> Self {
        literal(keyPath, text, prefix: true, suffix: false, folding: TextFolding.options(caseInsensitive, diacriticInsensitive))
    }

    /// The string attribute equals `text`, ignoring case (every script) and, with
    /// `diacriticInsensitive`, accents (`NSPredicate`'s `==[cd]`).
    ///
    /// ```swift
    /// .equals(\.name, "ada", caseInsensitive: true)
    /// .equals(\.city, "zurich", caseInsensitive: true, diacriticInsensitive: true)   // Zürich
    /// ```
    public static func equals<V: Storable>(_ keyPath: KeyPath<M, V>, _ text: String, caseInsensitive: Bool, diacriticInsensitive: Bool = false) -> Self {
        let folding = TextFolding.options(caseInsensitive, diacriticInsensitive)
        guard folding != 0 else { return compare(keyPath, "=", .text(text)) }
        let (column, unknown, names) = column(keyPath)
        return Self(sql: "\(TextFolding.sql(column, folding)) = ?", arguments: [.text(TextFolding.fold(text, folding))], unknown: unknown, columns: names)
    }

    private static func literal(_ keyPath: PartialKeyPath<M>, _ text: String, prefix: Bool, suffix: Bool, folding: Int) -> Self {
        let glob = text.map(escapeGlob).joined()
        return match(keyPath, glob: (prefix ? "*" : "") + glob + (suffix ? "*" : ""), folding: folding)
    }

    /// `GLOB` on the column as it is, or on its folded form against the folded pattern (the
    /// pattern's `[*]` escapes fold to themselves).
    private static func match(_ keyPath: PartialKeyPath<M>, glob: String, folding: Int) -> Self {
        let (column, unknown, names) = column(keyPath)
        if folding != 0 {
            return Self(sql: "\(TextFolding.sql(column, folding)) GLOB ?", arguments: [.text(TextFolding.fold(glob, folding))], unknown: unknown, columns: names)
        }
        return Self(sql: "\(column) GLOB ?", arguments: [.text(glob)], unknown: unknown, columns: names)
    }

    private static func escapeGlob(_ character: Character) -> String {
        switch character {
        case "*", "?", "[": "[\(character)]"
        default: String(character)
        }
    }

    /// Both filters hold.
    public static func && (lhs: Self, rhs: Self) -> Self {
        Self(sql: "(\(lhs.sql)) AND (\(rhs.sql))", arguments: lhs.arguments + rhs.arguments, unknown: lhs.unknown + rhs.unknown, columns: lhs.columns + rhs.columns)
    }

    /// Either filter holds.
    public static func || (lhs: Self, rhs: Self) -> Self {
        Self(sql: "(\(lhs.sql)) OR (\(rhs.sql))", arguments: lhs.arguments + rhs.arguments, unknown: lhs.unknown + rhs.unknown, columns: lhs.columns + rhs.columns)
    }

    /// The filter does not hold (an attribute that is NULL passes neither a filter nor its
    /// negation, as in SQL).
    public static prefix func ! (filter: Self) -> Self {
        Self(sql: "NOT (\(filter.sql))", arguments: filter.arguments, unknown: filter.unknown, columns: filter.columns)
    }
}

/// The attribute equals the value (`nil` matches a missing optional).
///
/// ```swift
/// Person.query().filter(\.name == "Ada")
/// ```
public func == <M: Model, V: Storable & Equatable>(lhs: KeyPath<M, V>, rhs: V) -> ObjectFilter<M> {
    ObjectFilter.compare(lhs, "=", rhs.storedValue)
}

/// The attribute differs from the value (`!= nil` matches a present optional).
public func != <M: Model, V: Storable & Equatable>(lhs: KeyPath<M, V>, rhs: V) -> ObjectFilter<M> {
    ObjectFilter.compare(lhs, "<>", rhs.storedValue)
}

/// The attribute is less than the value.
public func < <M: Model, V: Storable & Comparable>(lhs: KeyPath<M, V>, rhs: V) -> ObjectFilter<M> {
    ObjectFilter.compare(lhs, "<", rhs.storedValue)
}

/// The attribute is at most the value.
public func <= <M: Model, V: Storable & Comparable>(lhs: KeyPath<M, V>, rhs: V) -> ObjectFilter<M> {
    ObjectFilter.compare(lhs, "<=", rhs.storedValue)
}

/// The attribute is greater than the value.
///
/// ```swift
/// Person.query().filter(\.age > 20)
/// ```
public func > <M: Model, V: Storable & Comparable>(lhs: KeyPath<M, V>, rhs: V) -> ObjectFilter<M> {
    ObjectFilter.compare(lhs, ">", rhs.storedValue)
}

/// The attribute is at least the value.
public func >= <M: Model, V: Storable & Comparable>(lhs: KeyPath<M, V>, rhs: V) -> ObjectFilter<M> {
    ObjectFilter.compare(lhs, ">=", rhs.storedValue)
}

/// The optional attribute is present and less than the value.
public func < <M: Model, V: Storable & Comparable>(lhs: KeyPath<M, V?>, rhs: V) -> ObjectFilter<M> {
    ObjectFilter.compare(lhs, "<", rhs.storedValue)
}

/// The optional attribute is present and at most the value.
public func <= <M: Model, V: Storable & Comparable>(lhs: KeyPath<M, V?>, rhs: V) -> ObjectFilter<M> {
    ObjectFilter.compare(lhs, "<=", rhs.storedValue)
}

/// The optional attribute is present and greater than the value.
public func > <M: Model, V: Storable & Comparable>(lhs: KeyPath<M, V?>, rhs: V) -> ObjectFilter<M> {
    ObjectFilter.compare(lhs, ">", rhs.storedValue)
}

/// The optional attribute is present and at least the value.
public func >= <M: Model, V: Storable & Comparable>(lhs: KeyPath<M, V?>, rhs: V) -> ObjectFilter<M> {
    ObjectFilter.compare(lhs, ">=", rhs.storedValue)
}
