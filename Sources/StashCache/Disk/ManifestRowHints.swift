/// Where the manifest rows of keys looked up before are: a table from a key's hash to the
/// rowid of its row, so that the next lookup of the key descends the table's B-tree by an
/// integer instead of descending the key index first (at 10,000 entries a read costs about
/// a fifth less).
///
/// A hint is a guess, never trusted: ``ManifestReader`` uses the row found by its rowid only
/// when that row's key is the key looked up, byte for byte; any other row, or none, sends
/// the lookup down the key index as before, and the hint is dropped. So a hint made stale by
/// anything (a removal, a rowid reused by another key, another process's writes, two keys
/// with one hash) costs one extra descent, never a wrong answer, and nothing has to keep the
/// hints in step with the manifest.
///
/// The hashes are 64 bits, seeded per process (`Hasher`), so keys cannot be crafted in
/// advance to share one. The table (``MemoryCacheTable``, 17 bytes a hint) holds at most
/// ``limit`` hints: a quarter more than the manifest's entries, so that hints of removed keys
/// cannot pile up; past it, every hint is dropped and lookups make them again.
struct ManifestRowHints {
    private var table = MemoryCacheTable<UInt64, Int64>()
    /// The most hints kept, set from the manifest's entry count when reached.
    private(set) var limit = minimumLimit

    static let minimumLimit = 4_096

    var count: Int { table.count }

    /// The hash a key's hint is kept under.
    static func hash(_ key: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hasher = Hasher()
        hasher.combine(bytes: UnsafeRawBufferPointer(key))
        return UInt64(bitPattern: Int64(hasher.finalize()))
    }

    /// The rowid hinted for the key of `hash`, if any.
    func rowid(for hash: UInt64) -> Int64? {
        table[hash]
    }

    /// Hints `rowid` for the key of `hash`. At ``limit`` hints, `entries` (the number of
    /// entries in the manifest) sets a new limit, and when the hints are still over it they
    /// are all dropped first.
    mutating func insert(_ rowid: Int64, for hash: UInt64, entries: () -> Int) {
        if table.count >= limit {
            let entries = entries()
            limit = max(Self.minimumLimit, entries + entries / 4)
            if table.count >= limit { table.removeAll() }
        }
        if let index = table.find(hash) {
            table[itemAt: index] = rowid
        } else {
            table.insert(rowid, forKey: hash)
        }
    }

    /// Drops the hint of the key of `hash`, found wrong.
    mutating func remove(_ hash: UInt64) {
        table.removeValue(forKey: hash)
    }

    /// Drops every hint and gives their memory back.
    mutating func removeAll() {
        table.removeAll()
    }
}
