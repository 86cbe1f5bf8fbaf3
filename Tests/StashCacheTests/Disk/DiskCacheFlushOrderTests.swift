import Foundation
import GRDB
import GRDBSQLite
@testable import StashCache
import StashCore
import StashTestSupport
import Testing

/// A flush visits the manifest in the order of its key index and, for last-access dates, of
/// its table (``ManifestKeyOrder``), so that a flush changing rows on more pages than SQLite
/// keeps in memory (about 500) writes each page about once. In the order of a dictionary,
/// a page was written out of that cache, read back and written again, about once per row.
///
/// The manifests here are a few times larger than that cache: 20,000 entries with long keys,
/// about 2,200 pages. Each test makes its writes in a seeded random order, and prints the seed.
struct DiskCacheFlushOrderTests {
    let fixture = DiskCacheFixture()
    static let count = 20_000

    static func key(_ index: Int) -> String {
        "https://images.example.com/catalogue/2026/autumn/collection/thumbnails/large/\(index)-" + String(repeating: "x", count: 60)
    }

    /// The pages the manifest's write connection wrote and read during `flush`, as SQLite
    /// counts them (`SQLITE_DBSTATUS_CACHE_WRITE` and `_MISS`: a page written again after it
    /// was written out of its cache counts again, and reading it back is a miss), and the
    /// manifest's pages after it.
    static func pageTraffic(_ cache: DiskCache, _ flush: () async throws -> Void) async throws -> (written: Int, read: Int, pages: Int) {
        func counters() -> (written: Int32, read: Int32) {
            cache.manifest.database.inDatabase { db in
                var written: Int32 = 0, read: Int32 = 0, highest: Int32 = 0
                sqlite3_db_status(db.sqliteConnection, SQLITE_DBSTATUS_CACHE_WRITE, &written, &highest, 0)
                sqlite3_db_status(db.sqliteConnection, SQLITE_DBSTATUS_CACHE_MISS, &read, &highest, 0)
                return (written, read)
            }
        }
        let before = counters()
        try await flush()
        let after = counters()
        let pages = try await cache.manifest.database.read { try Int.fetchOne($0, sql: "PRAGMA page_count") } ?? 0
        return (Int(after.written - before.written), Int(after.read - before.read), pages)
    }

    /// One flush of 4,000 new keys spread among 20,000: the key index is visited first page
    /// to last, each page it inserts into written about once (about 1,300 pages written and
    /// 1,700 read; in a dictionary's order, 3,900 and 5,300).
    @Test func aFlushOfManyWritesWritesEachPageAboutOnce() async throws {
        // No flush before `flush()` but the ones past 4,096 staged writes.
        let cache = try fixture.open { $0.flushDelay = 3_600 }
        for index in stride(from: 0, to: 2 * Self.count, by: 2) { try cache.set(.filled(1, 100), forKey: Self.key(index)) }
        try await cache.flush()
        var generator = SeededGenerator(seed: SeededGenerator.freshSeed(for: "aFlushOfManyWritesWritesEachPageAboutOnce"))
        let added = stride(from: 1, to: 2 * Self.count, by: 2).shuffled(using: &generator).prefix(4_000).map(Self.key)
        let traffic = try await Self.pageTraffic(cache) {
            for key in added { try cache.set(.filled(2, 100), forKey: key) }
            try await cache.flush()
        }
        #expect(traffic.written < traffic.pages, "\(traffic)")
        #expect(cache.data(forKey: added[0]) == .filled(2, 100))
        try cache.close()
    }

    /// Every entry read once, after the access-date resolution: the flush that records the
    /// dates finds the rows in the key index's order and changes them in the table's, so each
    /// page is written about once (about 1,340 pages written and 2,070 read; in a dictionary's
    /// order, 14,000 and 45,000; found in key order and changed in that order, 13,000 and
    /// 14,000), and every row gets its date.
    @Test func aLargeFlushOfAccessDatesWritesEachPageAboutOnce() async throws {
        // Nothing flushes before `flush()`, neither the writes nor the dates.
        let cache = try fixture.open { $0.flushDelay = 3_600 }
        // Written 16 random keys a flush, as a cache fills over time: the table's order (of
        // rowids) is not the keys', and rows changed in key order would be all over the table.
        var generator = SeededGenerator(seed: SeededGenerator.freshSeed(for: "aLargeFlushOfAccessDatesWritesEachPageAboutOnce"))
        let keys = (0..<Self.count).map(Self.key).shuffled(using: &generator)
        for start in stride(from: 0, to: keys.count, by: 16) {
            for key in keys[start..<start + 16] { try cache.set(.filled(2, 100), forKey: key) }
            try await cache.flush()
        }
        fixture.clock.advance(by: 10)
        for key in keys.reversed() { #expect(cache.data(forKey: key) != nil) }
        let traffic = try await Self.pageTraffic(cache) { try await cache.flush() }
        #expect(traffic.written < traffic.pages, "\(traffic)")
        #expect(traffic.read < traffic.pages + traffic.pages / 4, "\(traffic)")
        let read = fixture.clock.now.timeIntervalSince1970
        let stale = try await cache.manifest.database.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM entry WHERE accessed != ?", arguments: [read]) }
        #expect(stale == 0)
        try cache.close()
    }
}
