import Foundation
import GRDB
@testable import StashCache
import StashCore
import StashTestSupport
import Testing

/// The manifest as the index: counts and sizes kept in the manifest across reopens, version 1
/// manifests upgraded in place, keys whose NFC form is ASCII normalized at open, and walks
/// that lay staged changes over the manifest.
struct DiskCacheManifestIndexTests {
    let fixture = DiskCacheFixture()

    /// Writes, replacements (inline to file and back) and removals, flushed, then a reopen:
    /// the count and size the manifest keeps are the ones a walk finds.
    @Test func countAndSizeAreKeptByTheManifestAcrossReopens() async throws {
        let cache = try fixture.open { $0.inlineThreshold = 100 }
        for index in 0..<50 { try cache.set(.filled(UInt8(index), 10 + index), forKey: "k\(index)") }
        try await cache.flush()
        try cache.set(.filled(1, 500), forKey: "k1")        // inline → file
        try cache.set(.filled(2, 5), forKey: "k2")
        cache.removeValue(forKey: "k3")
        cache.removeValue(forKey: "missing")
        try await cache.flush()
        try cache.set(.filled(1, 7), forKey: "k1")          // file → inline
        let staged = try cache.statistics()
        #expect(cache.count == 49 && staged.count == 49)
        #expect(cache.totalSize == staged.totalSize)
        try cache.close()

        let reopened = try fixture.open { $0.inlineThreshold = 100 }
        let walked = try reopened.statistics()
        #expect(reopened.count == 49 && walked.count == 49)
        #expect(reopened.totalSize == walked.totalSize)
        #expect(reopened.data(forKey: "k1") == .filled(1, 7))
        #expect(reopened.recovery.isClean, "\(reopened.recovery)")
        try reopened.close()
    }

    /// Writes a manifest as versions 1 and 2 did: values inline in `entry.data`; version 1
    /// without indexes or kept count and size.
    static func writeEarlierManifest(version: Int, in directory: URL, entries: Int) async throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let database = try DatabaseQueue(path: directory.appendingPathComponent("manifest.sqlite").path)
        try await database.write { db in
            try db.execute(sql: """
                CREATE TABLE entry (
                    key TEXT PRIMARY KEY NOT NULL, size INTEGER NOT NULL, file TEXT, created REAL NOT NULL,
                    accessed REAL NOT NULL, expires REAL, sliding REAL, metadata BLOB, data BLOB
                );
                CREATE TABLE counter (name TEXT PRIMARY KEY NOT NULL, value INTEGER NOT NULL);
                """)
            for index in 0..<entries {
                try db.execute(
                    sql: "INSERT INTO entry (key, size, created, accessed, data) VALUES (?, 100, 1000000, 1000000, ?)",
                    arguments: ["k\(index)", Data.filled(UInt8(index), 100)]
                )
            }
            if version == 2 {
                try db.execute(sql: """
                    INSERT INTO counter (name, value) VALUES ('count', \(entries)), ('bytes', \(entries * 100));
                    CREATE INDEX entry_expiry ON entry(expires) WHERE expires IS NOT NULL;
                    CREATE INDEX entry_file ON entry(file) WHERE file IS NOT NULL;
                    CREATE INDEX entry_wide_key ON entry(key) WHERE length(key) != length(CAST(key AS BLOB));
                    """)
            }
            try db.execute(sql: "PRAGMA user_version = \(version)")
        }
        try database.close()
    }

    /// A manifest of version 1 (no indexes or kept count) or 2 (values inline) opens with its
    /// values, the count and size computed once for version 1; rows keep their inline value
    /// until rewritten, and a rewritten one goes to the value log.
    @Test(arguments: [1, 2]) func earlierManifestsAreUpgradedInPlace(version: Int) async throws {
        try await Self.writeEarlierManifest(version: version, in: fixture.directory, entries: 20)
        let reopened = try fixture.open()
        #expect(!reopened.recovery.rebuiltManifest)
        #expect(reopened.count == 20 && reopened.totalSize == 2000)
        #expect(reopened.data(forKey: "k7") == .filled(7, 100))
        reopened.removeValue(forKey: "k7")
        try reopened.set(.filled(99, 100), forKey: "k8")
        try reopened.close()
        let again = try fixture.open()
        #expect(again.count == 19 && again.totalSize == 1900)
        #expect(again.data(forKey: "k8") == .filled(99, 100) && again.data(forKey: "k9") == .filled(9, 100))
        try again.close()
        let inspection = try DatabaseQueue(path: fixture.directory.appendingPathComponent("manifest.sqlite").path)
        let (logged, inline) = try await inspection.read { db in
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM entry WHERE loc IS NOT NULL") ?? -1,
             try Int.fetchOne(db, sql: "SELECT count(*) FROM entry WHERE data IS NOT NULL") ?? -1)
        }
        #expect(logged == 1 && inline == 18)
    }

    /// The Kelvin sign's NFC form is the ASCII "K": a row under each form, written by a
    /// version before keys were normalized, become one entry, the newest.
    @Test func keysWhoseNormalFormIsASCIIAreNormalizedAtOpen() throws {
        let cache = try fixture.open()
        try cache.set(.filled(1, 16), forKey: "K")
        try cache.close()
        let database = try DatabaseQueue(path: fixture.directory.appendingPathComponent("manifest.sqlite").path)
        try database.write { db in
            try db.execute(
                sql: "INSERT INTO entry (key, size, file, created, accessed, data) VALUES (?, 16, NULL, ?, ?, ?)",
                arguments: ["\u{212A}", 2_000_000, 2_000_000, Data.filled(2, 16)]
            )
        }
        try database.close()

        let reopened = try fixture.open()
        #expect(reopened.recovery.normalizedKeys == 1 && reopened.recovery.removedEntries == 1, "\(reopened.recovery)")
        #expect(reopened.data(forKey: "K") == .filled(2, 16))
        #expect(reopened.count == 1 && reopened.totalSize == 16)
        #expect(try reopened.entries().map(\.key) == ["K"])
        try reopened.close()
    }

    /// Walks see what callers see: staged writes and removals over the flushed rows, keys in
    /// a prefix range only.
    @Test func walksLayStagedChangesOverTheManifest() async throws {
        let cache = try fixture.open { $0.flushDelay = 3600 }
        try await cache.flush()
        for key in ["user/1/a", "user/1/b", "user/2/a"] { try cache.set(.filled(1, 10), forKey: key) }
        try await cache.flush()
        cache.removeValue(forKey: "user/1/a")
        try cache.set(.filled(2, 30), forKey: "user/1/c")
        try cache.set(.filled(3, 20), forKey: "user/2/a")
        #expect(try cache.entries().map(\.key) == ["user/1/b", "user/1/c", "user/2/a"])
        #expect(cache.totalSize(ofKeysWithPrefix: "user/1/") == 40)
        #expect(cache.totalSize(ofKeysWithPrefix: "user/2/") == 20)
        #expect(try cache.statistics().totalSize == 60 && cache.totalSize == 60)
        #expect(try await cache.removeAll { $0.hasPrefix("user/1/") } == 2)
        #expect(cache.count == 1)
        try cache.close()
    }

    /// A trim orders entries as callers see them, not as last flushed: an entry read since
    /// the last flush is recent, a staged write is an entry, and the trim stops at the ratio.
    /// (A trim runs right after a flush, but reads and writes go on meanwhile: here they
    /// are left unflushed on purpose, and the free-disk floor makes the trim pick by LRU.)
    @Test func trimsOrderUnflushedReadsAndWritesByLastAccess() async throws {
        let cache = try fixture.open {
            $0.flushDelay = 3600
            $0.sizeLimit = nil
            $0.minimumFreeDiskSpace = .max
        }
        try await cache.flush()
        for index in 0..<10 {
            try cache.set(.filled(UInt8(index), 10), forKey: "k\(index)")
            fixture.clock.advance(by: 1)
        }
        try await cache.flush()
        #expect(cache.data(forKey: "k0") != nil)     // read at 10: only in memory
        fixture.clock.advance(by: 1)
        try cache.set(.filled(10, 10), forKey: "k10")  // written at 11: only staged
        let removed = try await cache.onQueue { try cache.stageTrim(expiredOnly: false) }
        #expect(removed == 6)                          // 110 bytes down to half: 50
        try await cache.flush()
        #expect(try cache.entries().map(\.key).sorted() == ["k0", "k10", "k7", "k8", "k9"])
        #expect(cache.count == 5 && cache.totalSize == 50)
        try cache.close()
    }

    /// Counters crafted to hold text and a blob (another process, a damaged file) are read
    /// as numbers, not a trap: the cache opens, reports figures and keeps working.
    @Test func craftedCountersAreReadAsNumbers() async throws {
        let cache = try fixture.open()
        try cache.set(.filled(1, 10), forKey: "a")
        try cache.close()
        try await DatabaseQueue(path: fixture.directory.appendingPathComponent("manifest.sqlite").path).write { db in
            try db.execute(sql: "UPDATE counter SET value = 'not a number' WHERE name = 'count'")
            try db.execute(sql: "INSERT OR REPLACE INTO counter (name, value) VALUES ('hits', x'00ff')")
        }
        let reopened = try fixture.open()
        #expect(reopened.data(forKey: "a") == .filled(1, 10))
        _ = try reopened.statistics()
        try reopened.set(.filled(2, 10), forKey: "b")
        try reopened.close()
        #expect(try fixture.open().data(forKey: "b") == .filled(2, 10))
    }

    /// Rows whose columns hold values of another type are read as SQLite converts them
    /// (text or a blob in a number column reads as 0), as lookups read them: a trim walks
    /// past them and reconciliation corrects a size; a NULL where text must be (a table
    /// rebuilt without its constraints) is `.corruptFile`, which a writer's open answers by
    /// rebuilding the cache empty. Never a trap.
    @Test func craftedRowsAreRefusedNotTrappedOn() async throws {
        let cache = try fixture.open { $0.inlineThreshold = 10 }
        try cache.set(.filled(1, 5), forKey: "inline")
        try cache.set(.filled(2, 50), forKey: "file")
        try cache.close()
        let path = fixture.directory.appendingPathComponent("manifest.sqlite").path
        try await DatabaseQueue(path: path).write { db in
            try db.execute(sql: "UPDATE entry SET accessed = x'0102', created = 'yesterday' WHERE key = 'inline'")
            try db.execute(sql: "UPDATE entry SET size = 'large' WHERE key = 'file'")
        }
        // Over its count limit, so that a trim walks every row by last access (down to half
        // the limit: both go).
        let reopened = try fixture.open { $0.inlineThreshold = 10; $0.countLimit = 1 }
        #expect(!reopened.recovery.rebuiltManifest && reopened.recovery.resizedEntries == 1, "\(reopened.recovery)")
        _ = try await reopened.trim()
        #expect(reopened.count == 0 && reopened.data(forKey: "inline") == nil)
        try reopened.close()

        let again = try fixture.open { $0.inlineThreshold = 10 }
        try again.set(.filled(2, 50), forKey: "file")
        try again.close()
        try await DatabaseQueue(path: path).write { db in
            try db.execute(sql: """
                ALTER TABLE entry RENAME TO old;
                CREATE TABLE entry (key TEXT, size INTEGER, file TEXT, created REAL, accessed REAL, expires REAL, sliding REAL, metadata BLOB, data BLOB, loc INTEGER, span INTEGER);
                INSERT INTO entry SELECT * FROM old;
                DROP TABLE old;
                INSERT INTO entry (key, size, file, created, accessed) VALUES (NULL, 1, 'orphan', 0, 0);
                """)
        }
        let rebuilt = try fixture.open { $0.inlineThreshold = 10 }
        #expect(rebuilt.recovery.rebuiltManifest)
        #expect(rebuilt.count == 0 && rebuilt.data(forKey: "file") == nil)
        try rebuilt.set(.filled(3, 50), forKey: "after")
        try rebuilt.close()
        #expect(try fixture.open { $0.inlineThreshold = 10 }.data(forKey: "after") == .filled(3, 50))
    }
}
