import Foundation

/// The order of the manifest's key index, in which a flush visits its keys.
///
/// The index compares keys with SQLite's `BINARY` collation: their UTF-8 bytes, as `memcmp`
/// does. For keys in NFC, which is how the manifest stores them (``StoredKey``), that is
/// the order of `String`'s `<`, which compares Unicode scalars, and is three times faster to
/// sort by than a byte comparison. (A key in another form would only be visited out of
/// place.)
///
/// Why a flush sorts: SQLite keeps about 500 pages of a connection in memory, and when one
/// transaction changes rows on more pages than that, it writes changed pages to the WAL
/// before the commit and reads them back when another change comes to them. Taken in the
/// order of a dictionary, a flush of many changes wrote about one page per row changed; in
/// the index's order, it goes through the index pages once each, first to last.
enum ManifestKeyOrder {
    /// The positions of `keys`, in the index's order of the keys. Positions, not the items
    /// they stand for, are what is sorted: a flush's staged changes are large to move.
    static func positions(of keys: [String]) -> [Int] {
        keys.indices.sorted { keys[$0] < keys[$1] }
    }
}
