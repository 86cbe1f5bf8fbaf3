import Foundation
import GRDB
@testable import StashCache
import StashCore
import StashTestSupport
import Testing

/// A lookup goes straight to the rowid it found for its key before (``ManifestRowHints``)
/// and uses that row only when its key is the key looked up: a hint made stale by a removal,
/// a rowid that SQLite gave to another key, or another writer never answers for a key.
struct DiskCacheRowHintTests {
    let fixture = DiskCacheFixture()

    /// The rowid of `key`'s row, read with GRDB.
    func rowid(of key: String) throws -> Int64? {
        let database = try DatabaseQueue(path: fixture.directory.appendingPathComponent("manifest.sqlite").path)
        defer { try? database.close() }
        return try database.read { db in try Int64.fetchOne(db, sql: "SELECT rowid FROM entry WHERE key = ?", arguments: [key]) }
    }

    /// Writes "first", then "old", each flushed: "old" has the largest rowid (a flush writes
    /// in no set order).
    func writeFirstThenOld(_ cache: DiskCache) async throws {
        try cache.set(.filled(1, 10), forKey: "first")
        try await cache.flush()
        try cache.set(.filled(2, 10), forKey: "old")
        try await cache.flush()
    }

    /// Removes "old", then writes "new" (`size` bytes), each flushed, and checks that SQLite
    /// gave "new" the rowid "old" had (the largest, freed).
    func replaceOldWithNew(_ cache: DiskCache, size: Int) async throws {
        let reused = try #require(try rowid(of: "old"))
        cache.removeValue(forKey: "old")
        try await cache.flush()
        try cache.set(.filled(3, size), forKey: "new")
        try await cache.flush()
        #expect(try rowid(of: "new") == reused, "the test needs SQLite to reuse the rowid")
    }

    /// "old" is read (its rowid hinted), removed, and "new" is written: SQLite gives the new
    /// row the rowid "old" had (the largest one, freed). Reading "old" finds "new"'s row by
    /// the hint, sees another key and misses; without that check it would return "new"'s value.
    @Test func aHintLeftByARemovedKeyNeverAnswersForTheKeyThatReusedItsRowid() async throws {
        let cache = try fixture.open()
        try await writeFirstThenOld(cache)
        #expect(cache.data(forKey: "old") == .filled(2, 10))
        try await replaceOldWithNew(cache, size: 10)
        #expect(cache.data(forKey: "old") == nil)
        #expect(cache.info(forKey: "old") == nil)
        #expect(cache.data(forKey: "new") == .filled(3, 10))
        #expect(cache.data(forKey: "old") == nil)
        #expect(cache.data(forKey: "first") == .filled(1, 10))
        try cache.close()
    }

    /// A read-only view's hints go stale behind its back, by another writer's commits: each
    /// of its reads still answers with the key's row as last committed.
    @Test func aReadOnlyViewAnswersRightAfterAnotherWriterReusedARowid() async throws {
        let cache = try fixture.open()
        try await writeFirstThenOld(cache)
        let view = try fixture.open { $0.access = .readOnly }
        #expect(view.data(forKey: "old") == .filled(2, 10))
        #expect(view.info(forKey: "first")?.size == 10)
        try await replaceOldWithNew(cache, size: 20)
        #expect(view.data(forKey: "old") == nil)
        #expect(view.info(forKey: "old") == nil)
        #expect(view.data(forKey: "new") == .filled(3, 20))
        try view.close()
        try cache.close()
    }

    /// Every key of a cache read many times over in a random order, while values are
    /// replaced and removed and flushed in between: each read returns what a dictionary
    /// holding the same writes holds.
    @Test func readsMatchAModelWhileRowsAreReplacedAndRemoved() async throws {
        let seed = SeededGenerator.freshSeed(for: "DiskCacheRowHintTests.readsMatchAModelWhileRowsAreReplacedAndRemoved")
        var random = SeededGenerator(seed: seed)
        let cache = try fixture.open()
        var model: [String: Data] = [:]
        for step in 0..<3_000 {
            let key = "key\(Int.random(in: 0..<200, using: &random))"
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<2:
                let value = Data.filled(UInt8(truncatingIfNeeded: step), Int.random(in: 1..<40, using: &random))
                try cache.set(value, forKey: key)
                model[key] = value
            case 2:
                cache.removeValue(forKey: key)
                model[key] = nil
            case 3:
                try await cache.flush()
            default:
                #expect(cache.data(forKey: key) == model[key], "seed \(seed), step \(step), \(key)")
            }
        }
        try cache.close()
    }

    /// Hints never outnumber the manifest's entries by more than a quarter (at least
    /// ``ManifestRowHints/minimumLimit``): past that, they are all dropped, so that hints of
    /// keys removed long ago cannot pile up.
    @Test func hintsStayBoundedByTheEntryCount() {
        var hints = ManifestRowHints()
        var largest = 0
        for index in 0..<20_000 {
            hints.insert(Int64(index), for: UInt64(index) &* 0x9E37_79B9_7F4A_7C15) { 1_000 }
            largest = max(largest, hints.count)
        }
        #expect(largest == ManifestRowHints.minimumLimit)
        #expect(hints.rowid(for: 19_999 &* 0x9E37_79B9_7F4A_7C15) == 19_999)

        var large = ManifestRowHints()
        for index in 0..<20_000 {
            large.insert(Int64(index), for: UInt64(index) &* 0x9E37_79B9_7F4A_7C15) { 100_000 }
        }
        #expect(large.count == 20_000)
        #expect(large.limit == 125_000)
        large.remove(7 &* 0x9E37_79B9_7F4A_7C15)
        #expect(large.rowid(for: 7 &* 0x9E37_79B9_7F4A_7C15) == nil)
        #expect(large.rowid(for: 8 &* 0x9E37_79B9_7F4A_7C15) == 8)
    }
}
