import Foundation
import GRDB
@testable import StashCache
import StashCore
import StashTestSupport
import Testing

/// Small values in the value log, found through the location index: they survive reopening
/// and crashes, a damaged or crafted record is a miss, compaction keeps every value while
/// readers run, and a writer that was suspended appends after what another writer wrote.
struct DiskCacheValueLogTests {
    let fixture = DiskCacheFixture()

    /// Value `index` of write round `round`: `size` bytes give or take 50.
    static func value(_ index: Int, _ round: Int = 0, size: Int = 100) -> Data {
        .filled(UInt8(truncatingIfNeeded: index &+ round &* 7), size + index % 50)
    }

    func write(_ cache: DiskCache, _ count: Int, round: Int = 0, size: Int = 100) async throws {
        for index in 0..<count { try cache.set(Self.value(index, round, size: size), forKey: "k\(index)") }
        try await cache.flush()
    }

    func indexed(_ cache: DiskCache) -> Int { cache.state.withLock { $0.locations?.count ?? -1 } }

    var segments: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: fixture.directory.appendingPathComponent("values").path)) ?? []).sorted()
    }

    /// Every small value goes to the log (no value in the manifest), is filed in the index at
    /// its flush, and after a clean close the next writer trusts the index it finds.
    @Test func smallValuesAreLoggedIndexedAndTrustedAfterACleanClose() async throws {
        let cache = try fixture.open()
        try await write(cache, 300)
        #expect(indexed(cache) == 300)
        try cache.close()
        let database = try DatabaseQueue(path: fixture.directory.appendingPathComponent("manifest.sqlite").path)
        let (inline, logged) = try await database.read { db in
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM entry WHERE data IS NOT NULL") ?? -1,
             try Int.fetchOne(db, sql: "SELECT count(*) FROM entry WHERE loc IS NOT NULL") ?? -1)
        }
        try database.close()
        #expect(inline == 0 && logged == 300 && segments == ["1.log"])

        let reopened = try fixture.open()
        #expect(indexed(reopened) == 300)
        for index in 0..<300 { #expect(reopened.data(forKey: "k\(index)") == Self.value(index)) }
        try reopened.close()
    }

    /// A replaced value reads new through the index after its flush and after reopening; a
    /// removed one reads as nothing.
    @Test func replacedAndRemovedValuesReadRightThroughTheIndex() async throws {
        let cache = try fixture.open()
        try await write(cache, 50)
        #expect(cache.data(forKey: "k3") == Self.value(3))
        try cache.set(.filled(9, 30), forKey: "k3")
        cache.removeValue(forKey: "k4")
        try await cache.flush()
        #expect(indexed(cache) == 49)
        #expect(cache.data(forKey: "k3") == .filled(9, 30) && cache.data(forKey: "k4") == nil)
        try cache.close()
        let reopened = try fixture.open()
        #expect(reopened.data(forKey: "k3") == .filled(9, 30) && reopened.data(forKey: "k4") == nil)
        #expect(reopened.count == 49)
        try reopened.close()
    }

    /// The folder as a crash leaves it (copied while the writer runs): the index is marked
    /// open, so the next writer starts it empty, sized for the manifest's entries, and files
    /// keys again as they are read, without ever growing it on the read path (a growth
    /// rewrites the whole table while every read waits).
    @Test func afterACrashTheIndexStartsOverAndValuesReadThroughTheManifest() async throws {
        let cache = try fixture.open()
        try await write(cache, 3_000)
        let crashed = fixture.folder.url.appendingPathComponent("crashed", isDirectory: true)
        try FileManager.default.copyItem(at: fixture.directory, to: crashed)
        try cache.close()
        let reopened = try DiskCache(directory: crashed, configuration: fixture.configuration())
        let capacity = reopened.state.withLock { $0.locations?.capacity ?? 0 }
        #expect(indexed(reopened) == 0)
        #expect(capacity == LocationIndex.capacity(for: 3_000) && capacity > LocationIndex.minimumCapacity)
        for index in 0..<3_000 { #expect(reopened.data(forKey: "k\(index)") == Self.value(index)) }
        #expect(indexed(reopened) == 3_000)
        #expect(reopened.state.withLock { $0.locations?.capacity ?? 0 } == capacity)
        try reopened.close()
    }

    /// Bytes of a segment damaged behind the cache's back: each damaged record is a miss
    /// and its entry goes, as a value whose file is gone; the other values are whole.
    @Test func aDamagedRecordIsAMissAndItsEntryGoes() async throws {
        let cache = try fixture.open()
        try await write(cache, 20)
        try cache.close()
        let database = try DatabaseQueue(path: fixture.directory.appendingPathComponent("manifest.sqlite").path)
        let loc = try await database.read { db in try Int.fetchOne(db, sql: "SELECT loc FROM entry WHERE key = 'k5'") } ?? -1
        try database.close()
        #expect(loc >> 32 == 1)
        let segment = fixture.directory.appendingPathComponent("values/1.log")
        var bytes = try Data(contentsOf: segment)
        // A byte of k5's value.
        bytes[(loc & 0xFFFF_FFFF) + 60] ^= 0xFF
        try bytes.write(to: segment)
        let reopened = try fixture.open()
        #expect(reopened.data(forKey: "k5") == nil)
        try await reopened.flush()
        #expect(reopened.count == 19 && reopened.info(forKey: "k5") == nil)
        for index in 0..<20 where index != 5 { #expect(reopened.data(forKey: "k\(index)") == Self.value(index)) }
        try reopened.close()
    }

    /// Rows whose `loc` and `span` were crafted (past the file, a gigabyte long, negative,
    /// text) read as misses, with no trap and no gigabyte buffer; a read-only view too.
    @Test func craftedLocationsInTheManifestAreMisses() async throws {
        let cache = try fixture.open()
        try await write(cache, 5)
        try cache.close()
        let database = try DatabaseQueue(path: fixture.directory.appendingPathComponent("manifest.sqlite").path)
        try await database.write { db in
            try db.execute(sql: "UPDATE entry SET loc = (1 << 32) + 100000 WHERE key = 'k0'")
            try db.execute(sql: "UPDATE entry SET span = 1 << 30 WHERE key = 'k1'")
            try db.execute(sql: "UPDATE entry SET loc = -5 WHERE key = 'k2'")
            try db.execute(sql: "UPDATE entry SET loc = 'here', span = x'00' WHERE key = 'k3'")
        }
        try database.close()
        // Crafted after a clean close: the index must not be trusted over the rows either.
        try FileManager.default.removeItem(at: fixture.directory.appendingPathComponent("locations"))
        let view = try fixture.open { $0.access = .readOnly }
        for index in 0..<4 { #expect(view.data(forKey: "k\(index)") == nil) }
        #expect(view.data(forKey: "k4") == Self.value(4))
        try view.close()
        let reopened = try fixture.open()
        for index in 0..<4 { #expect(reopened.data(forKey: "k\(index)") == nil) }
        #expect(reopened.data(forKey: "k4") == Self.value(4))
        try reopened.close()
    }

    /// The bytes of the value log's segments.
    var logSize: Int {
        let folder = fixture.directory.appendingPathComponent("values")
        return segments.reduce(0) { $0 + Int((try? FileStore.size(of: folder.appendingPathComponent($1))) ?? 0) }
    }

    /// Values rewritten until most of the log is dead: compaction brings the log back under
    /// twice its live bytes, deletes the segments it emptied, and every value reads as last
    /// written, after reopening too. Entries with a sliding expiry, read through the manifest
    /// only (never indexed), are read while it runs: the reader's snapshot moves to the
    /// copies before a segment goes, so none of them is ever missed.
    @Test func compactionReclaimsDeadBytesWhileReadersRun() async throws {
        let cache = try fixture.open { $0.flushDelay = 3600 }
        for index in 0..<100 { try cache.set(.filled(UInt8(index), 500), forKey: "sliding\(index)", expiry: .sliding(86_400)) }
        for round in 0..<6 { try await write(cache, 1_000, round: round, size: 1_000) }
        let dead = logSize
        #expect(dead > 6 * DiskCache.compactionFloor)
        let stop = LockedValue(false)
        let misses = LockedValue(0)
        let reader = Thread {
            while !stop.withLock({ $0 }) {
                for index in 0..<100 where cache.data(forKey: "sliding\(index)") != .filled(UInt8(index), 500) {
                    misses.withLock { $0 += 1 }
                }
            }
        }
        reader.start()
        try cache.queue.sync { try cache.compactIfDue() }
        stop.withLock { $0 = true }
        while !reader.isFinished { usleep(1_000) }
        #expect(misses.withLock { $0 } == 0)
        let live = 100 * (ValueLogRecord.headerSize + 10 + 500) + (0..<1_000).reduce(0) { $0 + ValueLogRecord.headerSize + "k\($1)".utf8.count + Self.value($1, 5, size: 1_000).count }
        #expect(logSize < 2 * live && logSize < dead / 2, "log \(logSize) bytes, \(live) live")
        #expect(!segments.contains("1.log"))
        for index in 0..<1_000 { #expect(cache.data(forKey: "k\(index)") == Self.value(index, 5, size: 1_000)) }
        try cache.close()
        let reopened = try fixture.open()
        #expect(reopened.recovery.isClean)
        for index in 0..<1_000 { #expect(reopened.data(forKey: "k\(index)") == Self.value(index, 5, size: 1_000)) }
        for index in 0..<100 { #expect(reopened.data(forKey: "sliding\(index)") == .filled(UInt8(index), 500)) }
        try reopened.close()
    }

    /// A writer suspended while another one rewrote and compacted the log takes the folder
    /// back on the other's segments: its reads see the other's values, and its next writes
    /// append after them instead of over them.
    @Test func aResumedWriterAppendsAfterWhatAnotherWriterLogged() async throws {
        let first = try fixture.open()
        try await write(first, 300, size: 1_000)
        try await first.suspend()
        let second = try fixture.open()
        for round in 1...8 { try await write(second, 300, round: round, size: 1_000) }
        try second.queue.sync { try second.compactIfDue() }
        #expect(!segments.contains("1.log"))
        try second.close()
        try first.resume()
        for index in 0..<300 { #expect(first.data(forKey: "k\(index)") == Self.value(index, 8, size: 1_000)) }
        for index in 0..<20 { try first.set(.filled(7, 90), forKey: "new\(index)") }
        try await first.flush()
        try first.close()
        let reopened = try fixture.open()
        for index in 0..<300 { #expect(reopened.data(forKey: "k\(index)") == Self.value(index, 8, size: 1_000)) }
        for index in 0..<20 { #expect(reopened.data(forKey: "new\(index)") == .filled(7, 90)) }
        try reopened.close()
    }

    /// A read-only view reads logged values, and goes on reading them after the writer
    /// rewrote them and compaction deleted the segment they were in.
    @Test func aReadOnlyViewReadsLoggedValuesAcrossCompaction() async throws {
        let writer = try fixture.open()
        try await write(writer, 500, size: 1_000)
        let view = try fixture.open { $0.access = .readOnly }
        #expect(view.data(forKey: "k42") == Self.value(42, size: 1_000))
        for round in 1...6 { try await write(writer, 500, round: round, size: 1_000) }
        try writer.queue.sync { try writer.compactIfDue() }
        #expect(!segments.contains("1.log"))
        for index in 0..<500 { #expect(view.data(forKey: "k\(index)") == Self.value(index, 6, size: 1_000)) }
        try view.close()
        try writer.close()
    }

    /// Clearing the cache gives the log's bytes back at the next compaction, though the log
    /// has not grown since it was last measured.
    @Test func clearingTheCacheGivesTheLogsBytesBack() async throws {
        let cache = try fixture.open { $0.flushDelay = 3600 }
        try await write(cache, 3_000, size: 1_000)
        try cache.queue.sync { try cache.compactIfDue() }
        #expect(logSize > 3 * DiskCache.compactionFloor)
        try await cache.removeAll()
        try cache.queue.sync { try cache.compactIfDue() }
        #expect(logSize == 0 && cache.count == 0)
        try cache.set(.filled(1, 10), forKey: "after")
        try cache.close()
        #expect(try fixture.open().data(forKey: "after") == .filled(1, 10))
    }

    /// A segment compaction cannot read now (out of descriptors) stays, with every value in
    /// it: compaction fails and tries again later, it never takes unreadable for gone.
    @Test func aSegmentCompactionCannotReadStaysWithItsValues() async throws {
        let cache = try fixture.open { $0.flushDelay = 3600 }
        try await write(cache, 500, size: 1_000)
        for round in 1...4 {
            for index in 0..<400 { try cache.set(Self.value(index, round, size: 1_000), forKey: "k\(index)") }
            try await cache.flush()
        }
        cache.valueLog.close()
        let plan = FaultInjection.arm(folder: fixture.directory.appendingPathComponent("values").path, failing: 1, of: .open, with: EMFILE, persistent: true)
        #expect(throws: StashError.self) { try cache.queue.sync { try cache.compactIfDue() } }
        plan.disarm()
        #expect(segments.contains("1.log"))
        for index in 400..<500 { #expect(cache.data(forKey: "k\(index)") == Self.value(index, size: 1_000)) }
        try cache.queue.sync { try cache.compactIfDue() }
        #expect(!segments.contains("1.log"))
        for index in 0..<500 { #expect(cache.data(forKey: "k\(index)") == Self.value(index, index < 400 ? 4 : 0, size: 1_000)) }
        try cache.close()
    }

    /// A crafted `segment` row (a number no segment has) makes the writer's open rebuild the
    /// cache, as any unusable manifest does; it never keeps the cache from opening.
    @Test func aCraftedSegmentRowRebuildsTheCache() async throws {
        let cache = try fixture.open()
        try await write(cache, 10)
        try cache.close()
        let database = try DatabaseQueue(path: fixture.directory.appendingPathComponent("manifest.sqlite").path)
        try await database.write { db in try db.execute(sql: "INSERT INTO segment (id, size) VALUES (9223372036854775807, 5)") }
        try database.close()
        let reopened = try fixture.open()
        #expect(reopened.recovery.rebuiltManifest && reopened.count == 0)
        try reopened.set(.filled(1, 10), forKey: "after")
        try reopened.close()
        #expect(try fixture.open().data(forKey: "after") == .filled(1, 10))
    }

    /// No room for the location index on the disk: the cache opens without one (its file is
    /// never mapped unallocated, where a store would raise SIGBUS) and reads through the manifest.
    @Test func aFullDiskForTheIndexLeavesTheCacheWithoutOne() async throws {
        let cache = try fixture.open()
        try await write(cache, 20)
        try cache.close()
        try FileManager.default.removeItem(at: fixture.directory.appendingPathComponent("locations"))
        let plan = FaultInjection.arm(folder: fixture.directory.path, failing: 1, of: .allocate, with: ENOSPC, persistent: true)
        defer { plan.disarm() }
        let full = try fixture.open()
        #expect(indexed(full) == -1)
        for index in 0..<20 { #expect(full.data(forKey: "k\(index)") == Self.value(index)) }
        try full.close()
    }

    /// The log's segments and the location index are opened without following a symbolic
    /// link: links planted in their place (by another process sharing the folder) are never
    /// written through. The value whose segment was replaced reads as gone; new values are
    /// written to a new segment.
    @Test func linksInPlaceOfTheLogAndTheIndexAreNotFollowed() async throws {
        let outside = fixture.folder.url.appendingPathComponent("outside")
        let original = Data("not the cache's".utf8)
        try original.write(to: outside)
        let first = try fixture.open()
        try first.set(.filled(1, 100), forKey: "a")
        try await first.flush()
        try first.close()
        for path in ["locations", "values/1.log"] {
            let link = fixture.directory.appendingPathComponent(path)
            try FileManager.default.removeItem(at: link)
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: outside)
        }
        let cache = try fixture.open()
        #expect(cache.data(forKey: "a") == nil)
        try cache.set(.filled(2, 100), forKey: "b")
        try await cache.flush()
        #expect(cache.data(forKey: "b") == .filled(2, 100))
        try cache.close()
        #expect(try Data(contentsOf: outside) == original)
        for path in ["locations", "values/1.log"] {
            let file = try FileManager.default.attributesOfItem(atPath: fixture.directory.appendingPathComponent(path).path)
            #expect(file[.type] as? FileAttributeType == .typeRegular, "\(path)")
        }
    }

    /// One flush of more small-value bytes than one append may write (a segment's offsets
    /// are 32 bits: 2 GB; lowered here to 8 MB so that small values reach it) commits them in
    /// parts, each segment's end recorded: every value reads back, in this writer and after a
    /// reopen, and the flush never fails on its size.
    @Test func aFlushOfMoreValueBytesThanOneAppendTakesCommitsThemInParts() async throws {
        let cache = try fixture.open {
            $0.inlineThreshold = 1 << 20
            $0.sizeLimit = nil
            $0.flushDelay = 3600
        }
        cache.valueLog.largestAppend = 8 << 20
        let values = (0..<20).map { Data.filled(UInt8($0), 900_000) }
        for (index, value) in values.enumerated() { try cache.set(value, forKey: "large\(index)") }
        try await cache.flush()
        for (index, value) in values.enumerated() { #expect(cache.data(forKey: "large\(index)") == value, "large\(index)") }
        try cache.close()
        let reopened = try fixture.open { $0.inlineThreshold = 1 << 20; $0.sizeLimit = nil }
        #expect(reopened.recovery.isClean, "\(reopened.recovery)")
        for (index, value) in values.enumerated() { #expect(reopened.data(forKey: "large\(index)") == value, "large\(index) after reopening") }
        try reopened.close()
    }
}
