import Foundation
import Logging
import GRDB
import StashCache
import StashCore
import StashTestSupport
import Testing

@Suite(.timeLimit(.minutes(3)))
struct DiskCacheRecoveryTests {
    @Test func theDefaultLoggerDiscardsEverything() {
        // A library never writes to an app's standard error on its own (swift-log's advice).
        #expect(DiskCache.Configuration().logger.handler is SwiftLogNoOpLogHandler)
    }

    @Test func aCorruptManifestIsRebuiltEmptyAndLogged() async throws {
        let fixture = DiskCacheFixture()
        let cache = try fixture.open { $0.inlineThreshold = 10 }
        try cache.set(.filled(1, 5), forKey: "inline")
        try cache.set(.filled(2, 500), forKey: "file")
        try cache.close()
        let manifest = fixture.directory.appendingPathComponent("manifest.sqlite")
        for suffix in ["-wal", "-shm"] { try FileStore.delete(URL(fileURLWithPath: manifest.path + suffix)) }
        try FileStore.write(Data(repeating: 0x5A, count: 8192), to: manifest)

        let log = LogMessages()
        let reopened = try DiskCache(directory: fixture.directory, configuration: fixture.configuration {
            $0.logger = log.logger
        })
        #expect(reopened.recovery.rebuiltManifest)
        #expect(log.all.contains { $0.level == .warning && $0.message.contains("unusable") })
        #expect(reopened.count == 0 && reopened.data(forKey: "inline") == nil)
        #expect(try FileStore.list(fixture.directory.appendingPathComponent("files")).isEmpty)
        try reopened.set(.filled(3, 500), forKey: "again")
        try await reopened.flush()
        try reopened.close()
        let third = try fixture.open()
        #expect(third.recovery.isClean && third.data(forKey: "again") == .filled(3, 500))
    }

    @Test func aTruncatedManifestIsRebuilt() throws {
        let fixture = DiskCacheFixture()
        let cache = try fixture.open()
        for index in 0..<2000 { try cache.set(.filled(UInt8(truncatingIfNeeded: index), 100), forKey: "k\(index)") }
        try cache.close()
        let manifest = fixture.directory.appendingPathComponent("manifest.sqlite")
        // Every page in the main file (none left in the WAL), so that cutting it loses rows.
        let checkpoint = try DatabaseQueue(path: manifest.path)
        try checkpoint.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        try checkpoint.close()
        let data = try FileStore.read(manifest)
        #expect(data.count > 100_000, "the rows are not in the main file")
        try FileStore.write(data.prefix(data.count / 2) + Data(repeating: 0xFF, count: 4096), to: manifest)
        let reopened = try fixture.open()
        // Half the pages are gone: SQLite finds the file malformed, and the manifest is
        // rebuilt empty (inline values lived in it), never served half-read.
        #expect(reopened.recovery.rebuiltManifest, "\(reopened.recovery)")
        #expect(reopened.count == 0)
        #expect(try reopened.entries().isEmpty)
        try reopened.set(.filled(7, 1000), forKey: "after")
        try reopened.close()
        let again = try fixture.open()
        #expect(again.recovery.isClean, "\(again.recovery)")
        #expect(again.data(forKey: "after") == .filled(7, 1000))
    }

    @Test func aDeletedDataFileRemovesOnlyItsEntryOnReopen() throws {
        let fixture = DiskCacheFixture()
        let cache = try fixture.open { $0.inlineThreshold = 10 }
        try cache.set(.filled(1, 500), forKey: "gone.jpg")
        try cache.set(.filled(2, 500), forKey: "kept.jpg")
        try cache.set(.filled(3, 5), forKey: "inline")
        let url = try #require(cache.fileURL(for: "gone.jpg"))
        try cache.close()
        try FileStore.delete(url)

        let reopened = try fixture.open { $0.inlineThreshold = 10 }
        #expect(reopened.recovery.removedEntries == 1 && reopened.recovery.removedFiles == 0)
        #expect(!reopened.contains("gone.jpg"))
        #expect(reopened.data(forKey: "kept.jpg") == .filled(2, 500))
        #expect(reopened.data(forKey: "inline") == .filled(3, 5))
        try reopened.close()
        let inspection = try ManifestInspection(directory: fixture.directory)
        #expect(inspection.rowsWithoutFile.isEmpty && inspection.orphanFiles.isEmpty)
    }

    @Test func aFileDeletedWhileOpenIsAMissAndItsEntryGoes() async throws {
        let fixture = DiskCacheFixture()
        let cache = try fixture.open { $0.inlineThreshold = 10 }
        try cache.set(.filled(1, 500), forKey: "gone")
        try FileStore.delete(try #require(cache.fileURL(for: "gone")))
        #expect(cache.data(forKey: "gone") == nil)
        try await cache.flush()
        #expect(cache.count == 0)
    }

    @Test func orphanAndTemporaryFilesAreDeletedOnReopen() throws {
        let fixture = DiskCacheFixture()
        let cache = try fixture.open()
        try cache.set(.filled(1, 50_000), forKey: "big")
        try cache.close()
        let files = fixture.directory.appendingPathComponent("files")
        try FileStore.write(Data("stray".utf8), to: files.appendingPathComponent("0123abcd"))
        try FileStore.write(Data("torn".utf8), to: files.appendingPathComponent(".0123abcd.x1.tmp"))
        let reopened = try fixture.open()
        #expect(reopened.recovery.removedFiles == 2)
        let name = try #require(reopened.fileURL(for: "big")).lastPathComponent
        #expect(try FileStore.list(files) == [name])
        #expect(reopened.data(forKey: "big")?.count == 50_000)
    }

    /// A child writes in a loop and is killed with SIGKILL at a random moment, several
    /// times: each reopen must find every row's file, no orphan file, whole values, and
    /// everything the child reported as flushed: the reopened cache holds exactly what the
    /// child's operations 0…M leave on top of the previous round's cache, for some M at or
    /// after the last `flushed` the child reported (flushes commit a prefix of its work).
    @Test func aWriterKilledMidWriteLeavesAConsistentCache() throws {
        var generator = SeededGenerator(seed: SeededGenerator.freshSeed(for: "aWriterKilledMidWriteLeavesAConsistentCache"))
        let fixture = DiskCacheFixture()
        var before: [String: Data] = [:]
        for round in 0..<4 {
            let child = try ChildProcess.testHost("cache.write-loop", fixture.directory.path)
            #expect(child.readLine() == "ready")
            var lastFlushed = -1
            let flushesBeforeKill = 1 + round
            while lastFlushed < 0 || Int.random(in: 0..<flushesBeforeKill, using: &generator) != 0 {
                guard let line = child.readLine(), line.hasPrefix("flushed ") else { break }
                lastFlushed = Int(line.dropFirst("flushed ".count)) ?? -1
            }
            usleep(UInt32.random(in: 0...3_000, using: &generator))
            child.kill()
            #expect(child.wait() == 128 + SIGKILL)

            let cache = try fixture.open { $0.inlineThreshold = 1024 }
            var found: [String: Data] = [:]
            for entry in try cache.entries() {
                let data = try #require(cache.data(forKey: entry.key))
                #expect(data.count == entry.size && isWrittenValue(data, key: entry.key), "torn value for \(entry.key)")
                found[entry.key] = data
            }
            #expect(lastFlushed >= 49)
            let matched = writeLoopState(from: before, matching: found, atOrAfter: lastFlushed)
            #expect(matched != nil, "round \(round): the reopened cache is not what operations 0…M left for any M ≥ \(lastFlushed)")
            before = found
            try cache.close()
            let inspection = try ManifestInspection(directory: fixture.directory)
            #expect(inspection.rowsWithoutFile.isEmpty, "round \(round)")
            #expect(inspection.orphanFiles.isEmpty, "round \(round)")
        }
    }
}

/// The operation index M ≥ `flushed` after which `cache.write-loop`, started on a cache
/// holding `start`, leaves exactly `found` (the same keys, the same values), or `nil`.
/// Operation `index` sets `item-<index % 64>.bin`, then for `index % 7 == 3` removes the key
/// of `index / 2` (``CacheScenarioValue``): a background flush may commit the set without
/// the removal that follows it, so the state between the two counts as well.
private func writeLoopState(from start: [String: Data], matching found: [String: Data], atOrAfter flushed: Int) -> Int? {
    guard flushed >= 0 else { return nil }
    var model = start
    for index in 0..<(flushed + 100_000) {
        model["item-\(index % 64).bin"] = Data(repeating: UInt8(truncatingIfNeeded: index), count: index % 3 == 0 ? 3000 + index % 500 : 10 + index % 200)
        // Between the set and its removal: only after `flushed`, whose removal is committed.
        if index > flushed, index % 7 == 3, model == found { return index }
        if index % 7 == 3 { model["item-\(index / 2 % 64).bin"] = nil }
        if index >= flushed, model == found { return index }
    }
    return nil
}

/// Whether `data` is one of the values `cache.write-loop` writes under `key`: the value of
/// write `index` is `index % 256` repeated, 3,000 + `index % 500` bytes long for every third
/// write and 10 + `index % 200` otherwise, under key `item-<index % 64>.bin`.
private func isWrittenValue(_ data: Data, key: String) -> Bool {
    guard let slot = Int(key.dropFirst("item-".count).dropLast(".bin".count)), let byte = data.first,
          Set(data).count == 1 else { return false }
    return stride(from: slot, to: 1_000_000, by: 64).contains { index in
        UInt8(truncatingIfNeeded: index) == byte && data.count == (index % 3 == 0 ? 3000 + index % 500 : 10 + index % 200)
    }
}
