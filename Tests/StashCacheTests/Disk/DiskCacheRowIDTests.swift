import Foundation
import GRDB
@testable import StashCache
import StashCore
import StashTestSupport
import Testing

/// Rows written under a keyed hash of their key (``ManifestRowID``): the hash is SipHash-2-4,
/// rows land at their key's ID, and a row that is not there (a collision, a row from before
/// hashed IDs, a renamed key) is still read, replaced, touched and removed.
struct DiskCacheRowIDTests {
    let fixture = DiskCacheFixture()

    private var manifestPath: String { fixture.directory.appendingPathComponent("manifest.sqlite").path }

    /// SipHash-2-4's published vectors (key 00…0f, message 00…n-1).
    @Test func theHashIsSipHash24() {
        let hash = ManifestRowID(k0: 0x0706_0504_0302_0100, k1: 0x0F0E_0D0C_0B0A_0908)
        let vectors: [(Int, UInt64)] = [(0, 0x726F_DB47_DD0E_0E31), (1, 0x74F8_39C5_93DC_67FD), (15, 0xA129_CA61_49BE_45E5)]
        for (count, expected) in vectors {
            let message = (0..<count).map { UInt8($0) }
            #expect(message.withUnsafeBytes { hash.hash($0) } == expected, "length \(count)")
        }
    }

    /// Every row a flush writes is at its key's ID under the manifest's seed, which a reopen
    /// keeps (two writers' seeds are not the same).
    @Test func rowsAreWrittenAtTheirKeysIDs() async throws {
        let cache = try fixture.open()
        for index in 0..<200 { try cache.set(.filled(UInt8(index), 10), forKey: "k\(index)") }
        try cache.close()
        let reopened = try fixture.open()
        try reopened.set(.filled(1, 10), forKey: "after the reopen")
        try reopened.close()
        let (seed, rows) = try await seedAndRows()
        let ids = ManifestRowID(seed: seed)
        #expect(rows.count == 201)
        for (rowID, key) in rows { #expect(rowID == ids(key), "\(key)") }

        let other = DiskCacheFixture()
        try other.open().close()
        let otherSeed = try await DatabaseQueue(path: other.directory.appendingPathComponent("manifest.sqlite").path).read { db in
            try Int64.fetchOne(db, sql: "SELECT value FROM counter WHERE name = 'row_seed'")
        }
        #expect(otherSeed != nil && otherSeed != seed)
    }

    /// A collision, made by hand: the row of "a" is moved to the ID of "b" before "b" is
    /// written, so "b" finds its ID taken and lands elsewhere, and "a" is not at its own.
    /// Both are read, replaced, touched and removed by their keys, before and after a
    /// reopen, and no key ever answers with the other's value.
    @Test func displacedRowsAreFoundByTheirKeys() async throws {
        let cache = try fixture.open { $0.inlineThreshold = 100 }
        try cache.set(.filled(1, 10), forKey: "a")
        try cache.set(.filled(9, 10), forKey: "c")
        try cache.close()
        let (seed, _) = try await seedAndRows()
        let ids = ManifestRowID(seed: seed)
        try await DatabaseQueue(path: manifestPath).write { db in
            try db.execute(sql: "UPDATE entry SET rowid = ? WHERE key = 'a'", arguments: [ids("b")])
        }

        let reopened = try fixture.open { $0.inlineThreshold = 100 }
        #expect(reopened.data(forKey: "a") == .filled(1, 10))
        #expect(reopened.data(forKey: "b") == nil)
        try reopened.set(.filled(2, 10), forKey: "b")
        try await reopened.flush()
        #expect(reopened.data(forKey: "a") == .filled(1, 10))
        #expect(reopened.data(forKey: "b") == .filled(2, 10))
        #expect(reopened.info(forKey: "b")?.size == 10)
        try reopened.close()

        let rows = try await seedAndRows().rows
        #expect(rows.first { $0.key == "a" }?.rowID == ids("b"))
        #expect(rows.first { $0.key == "b" }.map { $0.rowID != ids("b") } == true, "b was not displaced")

        // Replaced (inline to file), read again a second later (a touch), and removed.
        let again = try fixture.open { $0.inlineThreshold = 100 }
        try again.set(.filled(3, 500), forKey: "b")
        try again.set(.filled(4, 20), forKey: "a")
        try await again.flush()
        fixture.clock.advance(by: 5)
        let now = fixture.clock.now
        #expect(again.data(forKey: "a") == .filled(4, 20))
        #expect(again.data(forKey: "b") == .filled(3, 500))
        try await again.flush()
        #expect(again.info(forKey: "a")?.lastAccessedAt == now)
        again.removeValue(forKey: "a")
        try await again.flush()
        #expect(again.data(forKey: "a") == nil)
        #expect(again.data(forKey: "b") == .filled(3, 500))
        #expect(again.data(forKey: "c") == .filled(9, 10))
        try again.close()

        let last = try fixture.open { $0.inlineThreshold = 100 }
        #expect(last.data(forKey: "a") == nil)
        #expect(last.data(forKey: "b") == .filled(3, 500))
        #expect(last.count == 2 && last.recovery.isClean, "\(last.recovery)")
        let touched = try await DatabaseQueue(path: manifestPath).read { db in
            try Double.fetchOne(db, sql: "SELECT accessed FROM entry WHERE key = 'b'")
        }
        #expect(touched == now.timeIntervalSince1970, "the touch of the displaced row was not written")
        try last.close()
    }

    /// Rows written before IDs were hashed (numbered 1, 2, … by SQLite) and a manifest with
    /// no seed: the seed is drawn at the next writer's open, and every old row is found.
    @Test func rowsFromBeforeHashedIDsAreFound() async throws {
        let cache = try fixture.open()
        for index in 0..<30 { try cache.set(.filled(UInt8(index), 10), forKey: "k\(index)") }
        try cache.close()
        try await DatabaseQueue(path: manifestPath).write { db in
            try db.execute(sql: "DELETE FROM counter WHERE name = 'row_seed'")
            try db.execute(sql: "CREATE TEMP TABLE old AS SELECT * FROM entry ORDER BY key")
            try db.execute(sql: "DELETE FROM entry")
            try db.execute(sql: "INSERT INTO entry (key, size, file, created, accessed, expires, sliding, metadata, data) SELECT * FROM old")
        }
        let readOnly = try fixture.open { $0.access = .readOnly }
        #expect(readOnly.data(forKey: "k7") == .filled(7, 10))
        try readOnly.close()

        let reopened = try fixture.open()
        for index in 0..<30 { #expect(reopened.data(forKey: "k\(index)") == .filled(UInt8(index), 10)) }
        reopened.removeValue(forKey: "k3")
        try reopened.set(.filled(0, 5), forKey: "k4")
        try reopened.close()
        let (_, rows) = try await seedAndRows()
        #expect(rows.count == 29)
        let last = try fixture.open()
        #expect(last.data(forKey: "k3") == nil && last.data(forKey: "k4") == .filled(0, 5))
        try last.close()
    }

    /// A crafted seed (text, not an integer) is read as a number, not a trap.
    @Test func aCraftedSeedIsUsedAsANumber() async throws {
        try fixture.open().set(.filled(1, 10), forKey: "a")
        try await DatabaseQueue(path: manifestPath).write { db in
            try db.execute(sql: "UPDATE counter SET value = 'not a number' WHERE name = 'row_seed'")
            try db.execute(sql: "UPDATE counter SET value = x'00ff' WHERE name = 'hits'")
        }
        let reopened = try fixture.open()
        #expect(reopened.data(forKey: "a") == .filled(1, 10))
        try reopened.set(.filled(2, 10), forKey: "b")
        try reopened.close()
        #expect(try fixture.open().data(forKey: "b") == .filled(2, 10))
    }

    private func seedAndRows() async throws -> (seed: Int64, rows: [(rowID: Int64, key: String)]) {
        try await DatabaseQueue(path: manifestPath).read { db in
            let seed = try Int64.fetchOne(db, sql: "SELECT value FROM counter WHERE name = 'row_seed'") ?? 0
            let rows = try Row.fetchAll(db, sql: "SELECT rowid, key FROM entry").map { (rowID: $0[0] as Int64, key: $0[1] as String) }
            return (seed, rows)
        }
    }
}
