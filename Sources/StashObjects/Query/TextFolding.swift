import Foundation
import GRDB

/// Case- and diacritic-insensitive comparison beyond ASCII (`NSPredicate`'s `[c]`, `[d]`,
/// `[cd]`): the SQL function `stash_fold(text, options)`, registered on every connection of
/// a store, folds a column's text the way Foundation's `folding(options:locale:)` does, and
/// the filter compares it with the value folded the same way in Swift.
///
/// Why a function and not a folded shadow column: it needs no schema change, no migration
/// and no extra bytes per row, and works on every string attribute; its cost is one call per
/// row scanned (no index helps a folded comparison). ASCII text, most text in practice,
/// takes a byte loop without Foundation. Measured by `stash-bench objects --case
/// filter-folded` (docs/ARCHITECTURE.md, StashObjects, "Text folding").
enum TextFolding {
    /// Bit 1: case; bit 2: diacritics.
    static func options(_ caseInsensitive: Bool, _ diacriticInsensitive: Bool) -> Int {
        (caseInsensitive ? 1 : 0) | (diacriticInsensitive ? 2 : 0)
    }

    /// `stash_fold(column, options)`.
    static func sql(_ column: String, _ options: Int) -> String {
        "stash_fold(\(column), \(options))"
    }

    static func fold(_ text: String, _ options: Int) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            // ASCII has no diacritics; only case may change.
            guard options & 1 != 0, text.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) else { return text }
            return String(decoding: text.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
        }
        var folding: String.CompareOptions = []
        if options & 1 != 0 { folding.insert(.caseInsensitive) }
        if options & 2 != 0 { folding.insert(.diacriticInsensitive) }
        return text.folding(options: folding, locale: nil)
    }

    /// The function, deterministic so that SQLite may factor it out of loops.
    static let function = DatabaseFunction("stash_fold", argumentCount: 2, pure: true) { values in
        guard let text = String.fromDatabaseValue(values[0]) else { return values[0] }
        return fold(text, Int.fromDatabaseValue(values[1]) ?? 0)
    }

    /// A GRDB configuration that registers the function on each connection it opens.
    static func configuration() -> Configuration {
        var configuration = Configuration()
        configuration.prepareDatabase { db in db.add(function: TextFolding.function) }
        return configuration
    }
}
