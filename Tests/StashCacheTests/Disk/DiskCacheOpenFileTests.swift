import Foundation
import StashCache
import StashCore
import StashTestSupport
import Testing

/// `openFile(forKey:)`: a file-backed value opened for reading, counted as an access as a
/// read of its data is, so that trimming keeps the values read that way.
struct DiskCacheOpenFileTests {
    @Test func anOpenedFileReadsTheValueAndCountsAnAccess() throws {
        let fixture = DiskCacheFixture()
        let cache = try fixture.open { $0.inlineThreshold = 0 }
        try cache.set(.filled(1, 5_000), forKey: "movie")
        let created = try #require(cache.info(forKey: "movie")).lastAccessedAt
        fixture.clock.advance(by: 60)
        let handle = try #require(cache.openFile(forKey: "movie"))
        #expect(try handle.readToEnd() == .filled(1, 5_000))
        let accessed = try #require(cache.info(forKey: "movie")).lastAccessedAt
        #expect(accessed == created.addingTimeInterval(60))
        #expect(try cache.statistics().hits == 1)
        try cache.close()
    }

    @Test func missingInlineAndExpiredValuesOpenNothing() throws {
        let fixture = DiskCacheFixture()
        let cache = try fixture.open()
        try cache.set(.filled(2, 10), forKey: "small")           // inline: no file
        try cache.set(.filled(3, 30_000), forKey: "old", expiry: .after(5))
        #expect(cache.openFile(forKey: "small") == nil)
        #expect(cache.openFile(forKey: "absent") == nil)
        #expect(cache.openFile(forKey: "bad\u{0}key") == nil)
        fixture.clock.advance(by: 10)
        #expect(cache.openFile(forKey: "old") == nil)
        #expect(cache.data(forKey: "small") == .filled(2, 10))
        try cache.close()
    }

    /// A file deleted behind the cache's back opens nothing, and its entry is forgotten.
    @Test func aFileDeletedBehindTheCachesBackOpensNothing() throws {
        let fixture = DiskCacheFixture()
        let cache = try fixture.open()
        try cache.set(.filled(4, 30_000), forKey: "gone")
        let url = try #require(cache.fileURL(for: "gone"))
        try FileManager.default.removeItem(at: url)
        #expect(cache.openFile(forKey: "gone") == nil)
        #expect(!cache.contains("gone"))
        try cache.close()
    }

    /// A file cut short (or grown) behind the cache's back holds no value: opening it or
    /// reading its data is a miss that forgets the entry, so a handle handed out always
    /// holds the value's size in bytes. Across a flush and reopen, the entry stays gone.
    @Test(arguments: [2_000, 4_000])
    func aFileOfTheWrongSizeIsAMissThatForgetsTheEntry(wrongSize: Int) async throws {
        let fixture = DiskCacheFixture()
        let cache = try fixture.open { $0.inlineThreshold = 0 }
        for key in ["opened", "read"] {
            try cache.set(.filled(4, 3_000), forKey: key)
            let handle = try FileHandle(forWritingTo: try #require(cache.fileURL(for: key)))
            try handle.truncate(atOffset: UInt64(min(wrongSize, 3_000)))
            if wrongSize > 3_000 {
                try handle.seekToEnd()
                try handle.write(contentsOf: Data(count: wrongSize - 3_000))
            }
            try handle.close()
        }
        #expect(cache.openFile(forKey: "opened") == nil)
        #expect(!cache.contains("opened"))
        #expect(cache.data(forKey: "read") == nil)
        #expect(!cache.contains("read"))
        try await cache.flush()
        try cache.close()
        let reopened = try fixture.open()
        #expect(!reopened.contains("opened") && !reopened.contains("read"))
        try reopened.close()
    }

    /// A file that is there but cannot be opened (here a link that loops, `ELOOP`) is a
    /// miss that keeps the entry: only a missing file means the value is gone.
    @Test func aFileThatCannotBeOpenedKeepsItsEntry() throws {
        let fixture = DiskCacheFixture()
        let cache = try fixture.open { $0.inlineThreshold = 0 }
        try cache.set(.filled(4, 3_000), forKey: "looped")
        let url = try #require(cache.fileURL(for: "looped"))
        let kept = url.appendingPathExtension("kept")
        try FileManager.default.moveItem(at: url, to: kept)
        try FileManager.default.createSymbolicLink(atPath: url.path, withDestinationPath: url.lastPathComponent)
        #expect(cache.openFile(forKey: "looped") == nil)
        #expect(cache.data(forKey: "looped") == nil)
        #expect(throws: StashError.self) { _ = try cache.openFileReportingFailure(forKey: "looped") }
        #expect(cache.contains("looped"))
        try FileManager.default.removeItem(at: url)
        try FileManager.default.moveItem(at: kept, to: url)
        #expect(try cache.openFile(forKey: "looped")?.readToEnd() == .filled(4, 3_000))
        #expect(cache.data(forKey: "looped") == .filled(4, 3_000))
        try cache.close()
    }

    /// A read that fails (here a link that loops, `ELOOP`, as a process out of file
    /// descriptors fails too) is a miss in the statistics, not a hit, and does not make the
    /// entry look used: its last-access date and sliding deadline stay. A read that
    /// succeeds afterwards counts a hit and moves both.
    @Test func aFailedReadCountsAMissAndLeavesTheEntrysDates() throws {
        let fixture = DiskCacheFixture()
        let cache = try fixture.open { $0.inlineThreshold = 0 }
        try cache.set(.filled(4, 3_000), forKey: "looped", expiry: .sliding(100))
        let stored = try #require(cache.info(forKey: "looped"))
        let url = try #require(cache.fileURL(for: "looped"))
        let kept = url.appendingPathExtension("kept")
        try FileManager.default.moveItem(at: url, to: kept)
        try FileManager.default.createSymbolicLink(atPath: url.path, withDestinationPath: url.lastPathComponent)

        fixture.clock.advance(by: 60)
        #expect(cache.openFile(forKey: "looped") == nil)
        #expect(cache.data(forKey: "looped") == nil)
        #expect(cache.entry(forKey: "looped") == nil)
        let statistics = try cache.statistics()
        #expect(statistics.hits == 0)
        #expect(statistics.misses == 3)
        let afterFailures = try #require(cache.info(forKey: "looped"))
        #expect(afterFailures.lastAccessedAt == stored.lastAccessedAt)
        #expect(afterFailures.expiresAt == stored.expiresAt)

        try FileManager.default.removeItem(at: url)
        try FileManager.default.moveItem(at: kept, to: url)
        fixture.clock.advance(by: 30)
        let entry = try #require(cache.entry(forKey: "looped"))
        #expect(entry.data == .filled(4, 3_000))
        #expect(entry.info.lastAccessedAt == stored.lastAccessedAt.addingTimeInterval(90))
        #expect(entry.info.expiresAt == stored.lastAccessedAt.addingTimeInterval(190))
        #expect(try cache.openFile(forKey: "looped")?.readToEnd() == .filled(4, 3_000))
        #expect(try cache.statistics().hits == 2)
        try cache.close()
    }

    /// A file gone or cut short is a miss too.
    @Test func aValueWhoseFileIsGoneCountsAMiss() throws {
        let fixture = DiskCacheFixture()
        let cache = try fixture.open { $0.inlineThreshold = 0 }
        try cache.set(.filled(4, 3_000), forKey: "gone")
        try cache.set(.filled(4, 3_000), forKey: "cut")
        try FileManager.default.removeItem(at: try #require(cache.fileURL(for: "gone")))
        let handle = try FileHandle(forWritingTo: try #require(cache.fileURL(for: "cut")))
        try handle.truncate(atOffset: 10)
        try handle.close()
        #expect(cache.openFile(forKey: "gone") == nil)
        #expect(cache.data(forKey: "cut") == nil)
        let statistics = try cache.statistics()
        #expect(statistics.hits == 0 && statistics.misses == 2)
        try cache.close()
    }

    /// A process out of file descriptors (`EMFILE`, as a busy server gets) reads nothing,
    /// and loses nothing: the entry is there once descriptors are free, and after a flush
    /// and reopen. A real child process, whose descriptor limit is lowered alone.
    @Test func runningOutOfFileDescriptorsKeepsTheEntry() throws {
        let fixture = DiskCacheFixture()
        let child = try ChildProcess.testHost("cache.out-of-descriptors", fixture.directory.path)
        let lines = child.readAllLines()
        #expect(child.wait() == 0)
        let exhausted = try #require(lines.first { $0.hasPrefix("exhausted ") })
        #expect(exhausted.hasPrefix("exhausted open=nil data=nil held="))
        #expect(!exhausted.hasSuffix("held=0"))
        #expect(lines.contains("after open=whole data=whole"))
        #expect(lines.contains("reopened open=whole data=whole"))
    }

    /// A file deleted behind the cache's back is a miss for a read of its data too, and
    /// its entry is forgotten.
    @Test func aReadOfAFileDeletedBehindTheCachesBackForgetsTheEntry() throws {
        let fixture = DiskCacheFixture()
        let cache = try fixture.open { $0.inlineThreshold = 0 }
        try cache.set(.filled(4, 3_000), forKey: "gone")
        try FileManager.default.removeItem(at: try #require(cache.fileURL(for: "gone")))
        #expect(cache.data(forKey: "gone") == nil)
        #expect(!cache.contains("gone"))
        try cache.close()
    }

    /// What an open handle reads does not change when the value is replaced or removed.
    @Test func anOpenHandleKeepsReadingTheValueItOpened() async throws {
        let fixture = DiskCacheFixture()
        let cache = try fixture.open()
        try cache.set(.filled(5, 30_000), forKey: "k")
        let handle = try #require(cache.openFile(forKey: "k"))
        try cache.set(.filled(6, 40_000), forKey: "k")
        try await cache.flush()
        cache.removeValue(forKey: "k")
        try await cache.flush()
        #expect(try handle.readToEnd() == .filled(5, 30_000))
        try cache.close()
    }

    /// Trimming removes the least recently used values first: a value read through its file
    /// is recent, and stays while colder ones go.
    @Test func aValueReadThroughItsFileSurvivesATrimOfColderOnes() async throws {
        let fixture = DiskCacheFixture()
        let cache = try fixture.open { $0.sizeLimit = 100_000; $0.trimRatio = 0.8; $0.inlineThreshold = 0 }
        try cache.set(.filled(7, 20_000), forKey: "popular")
        for index in 0..<3 {
            fixture.clock.advance(by: 10)
            try cache.set(.filled(8, 20_000), forKey: "cold-\(index)")
        }
        fixture.clock.advance(by: 10)
        #expect(cache.openFile(forKey: "popular") != nil)
        fixture.clock.advance(by: 10)
        try cache.set(.filled(9, 20_000), forKey: "new")
        try cache.set(.filled(9, 20_000), forKey: "newer")
        try await cache.trim()
        #expect(cache.contains("popular"))
        #expect(!cache.contains("cold-0"))
        try cache.close()
    }
}
