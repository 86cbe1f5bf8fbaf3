import Foundation
import GRDB
@testable import StashCache
import StashCore
import StashTestSupport
import Testing

/// A manifest row that cannot be read now (a damaged page, an I/O error) is not "no row":
/// the location index may still serve its value, so what is done to its key must not be
/// dropped as if the key had none.
struct DiskCacheUnreadableRowTests {
    let fixture = DiskCacheFixture()

    /// Fills a cache, closes it cleanly (its location index is trusted at the next open), and
    /// damages the root page of the manifest's key index, so that every lookup by key fails.
    private func cacheWithADamagedKeyIndex() async throws -> DiskCache {
        let cache = try fixture.open { $0.flushDelay = 3600 }
        for index in 0..<2_000 { try cache.set(.filled(UInt8(index % 200), 100), forKey: "key-\(index)") }
        try await cache.flush()
        try cache.close()
        let manifest = fixture.directory.appendingPathComponent("manifest.sqlite")
        // Every page in the database file itself, none in the write-ahead log.
        let database = try DatabaseQueue(path: manifest.path)
        try await database.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        let (root, pageSize) = try await database.read { db in
            (try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_master WHERE name = 'sqlite_autoindex_entry_1'") ?? 0,
             try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 0)
        }
        try database.close()
        #expect(root > 1 && pageSize > 0)
        let handle = try FileHandle(forWritingTo: manifest)
        try handle.seek(toOffset: UInt64((root - 1) * pageSize))
        try handle.write(contentsOf: Data(repeating: 0xFF, count: pageSize))
        try handle.close()
        return try fixture.open { $0.flushDelay = 3600 }
    }

    @Test func aRemovalWhoseRowCannotBeReadStillRemovesTheValue() async throws {
        let cache = try await cacheWithADamagedKeyIndex()
        #expect(throws: StashError.self, "the key's row cannot be looked up") { try cache.reader.lookUpRecord(forKey: "key-5") }
        #expect(cache.data(forKey: "key-5") == .filled(5, 100), "read through the location index, not the manifest")
        cache.removeValue(forKey: "key-5")
        #expect(cache.data(forKey: "key-5") == nil)
        #expect(!cache.contains("key-5"))
        #expect(cache.data(forKey: "key-6") == .filled(6, 100))
        try? cache.close()
    }
}
