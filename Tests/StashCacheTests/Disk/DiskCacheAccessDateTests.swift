import Foundation
import GRDB
@testable import StashCache
import StashCore
import StashTestSupport
import Testing

/// The last-access dates of reads are written a second after the read (``DiskCache/accessFlushDelay``)
/// rather than after ``DiskCache/Configuration/flushDelay``, so that a second of reads shares
/// the manifest pages it rewrites; a write's flush takes them along sooner, and too many of
/// them are written at once.
struct DiskCacheAccessDateTests {
    let fixture = DiskCacheFixture()

    /// Which flush each request gets, from each schedule.
    @Test func aReadWaitsLongerAndAWriteBringsItsFlushForward() {
        var state = DiskCacheState(counters: ManifestCounters(), now: 0)
        #expect(state.scheduleFlush(urgent: false, delay: 1, onlyAccessDates: true) == 1)
        #expect(state.scheduleFlush(urgent: false, delay: 1, onlyAccessDates: true) == nil)
        // A write after a read: a flush at the write's own, shorter delay.
        #expect(state.scheduleFlush(urgent: false, delay: 0.1) == 0.1)
        #expect(state.scheduleFlush(urgent: false, delay: 0.1) == nil)
        #expect(state.scheduleFlush(urgent: false, delay: 1, onlyAccessDates: true) == nil)
        // A flush scheduled for a write, or a failed flush's back-off, is never brought forward.
        state.flush = .idle
        #expect(state.scheduleFlush(urgent: false, delay: 8) == 8)
        #expect(state.scheduleFlush(urgent: false, delay: 0.1) == nil)
        // Urgent means now, once.
        #expect(state.scheduleFlush(urgent: true, delay: 0.1) == 0)
        #expect(state.scheduleFlush(urgent: true, delay: 0.1) == nil)
        state.flush = .idle
        _ = state.scheduleFlush(urgent: false, delay: 1, onlyAccessDates: true)
        #expect(state.scheduleFlush(urgent: true, delay: 1, onlyAccessDates: true) == 0)
    }

    /// Through the cache: a read schedules the slower flush, a write makes it the write's,
    /// and the date read reaches the manifest with the write, where a read-only opener (as
    /// another process) sees it; a read alone reaches it too, with no flush called.
    @Test func aReadsDateReachesTheManifestWithAWriteOrOnItsOwn() async throws {
        let cache = try fixture.open { $0.flushDelay = 0.05 }
        try cache.set(.filled(1, 10), forKey: "a")
        try await cache.flush()
        fixture.clock.advance(by: 10)
        #expect(cache.data(forKey: "a") == .filled(1, 10))
        #expect(cache.state.withLock { state in if case .accessDates = state.flush { true } else { false } })
        try cache.set(.filled(2, 10), forKey: "b")
        #expect(cache.state.withLock { state in if case .delayed = state.flush { true } else { false } })

        let reader = try fixture.open { $0.access = .readOnly }
        #expect(await eventually(within: 30) { reader.info(forKey: "b") != nil })
        #expect(reader.info(forKey: "a")?.lastAccessedAt == Date(timeIntervalSince1970: 1_000_010))

        fixture.clock.advance(by: 10)
        #expect(cache.data(forKey: "a") == .filled(1, 10))
        #expect(await eventually(within: 30) { reader.info(forKey: "a")?.lastAccessedAt == Date(timeIntervalSince1970: 1_000_020) })
        try reader.close()
        try cache.close()
    }

    /// Past ``DiskCache/urgentTouchCount`` entries read since the last flush, the read that
    /// reaches it asks for a flush at once: the dates waiting in memory stay bounded
    /// however fast a large cache is read.
    @Test func readingManyEntriesFlushesTheirDatesAtOnce() async throws {
        let cache = try fixture.open { $0.flushDelay = 3600 }
        let count = DiskCache.urgentTouchCount
        for index in 0..<count { try cache.set(Data([UInt8(truncatingIfNeeded: index)]), forKey: "k\(index)") }
        try await cache.flush()
        fixture.clock.advance(by: 10)
        for index in 0..<(count - 1) { _ = cache.data(forKey: "k\(index)") }
        #expect(cache.state.withLock { state in if case .accessDates = state.flush { true } else { false } })
        _ = cache.data(forKey: "k\(count - 1)")
        #expect(await eventually(within: 30) { cache.state.withLock { $0.touched.isEmpty } })
        try cache.close()
    }

    /// A read's date goes to its key's row wherever that row is when the flush writes it:
    /// here, behind the cache's back (another process, a crafted file), "a" moves to another
    /// rowid after it was read, and "b" takes the one it had. The flush changes "a" where it
    /// is now and leaves "b" alone, and a value read through `openFile` gets its date too. (A
    /// flush that wrote dates at the rowids the reads found, unchecked, would date "b".)
    @Test func aReadsDateGoesToItsKeysRowWhereverItIsByTheFlush() async throws {
        let cache = try fixture.open { $0.flushDelay = 3_600 }
        try cache.set(.filled(1, 10), forKey: "a")
        try cache.set(.filled(2, 10), forKey: "b")
        try cache.set(.filled(3, 30_000), forKey: "file")
        try await cache.flush()
        fixture.clock.advance(by: 10)
        #expect(cache.data(forKey: "a") == .filled(1, 10))
        #expect(cache.openFile(forKey: "file") != nil)
        // Another writer on the open cache's manifest: it waits for the cache's write lock.
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        let manifest = try DatabaseQueue(path: fixture.directory.appendingPathComponent("manifest.sqlite").path, configuration: configuration)
        try await manifest.write { db in
            let rowidOfA = try #require(try Int64.fetchOne(db, sql: "SELECT rowid FROM entry WHERE key = 'a'"))
            try db.execute(sql: "UPDATE entry SET rowid = (SELECT max(rowid) + 1 FROM entry) WHERE key = 'a'")
            try db.execute(sql: "UPDATE entry SET rowid = ? WHERE key = 'b'", arguments: [rowidOfA])
        }
        try manifest.close()
        try await cache.flush()
        try cache.close()
        let reopened = try fixture.open()
        #expect(reopened.info(forKey: "a")?.lastAccessedAt == Date(timeIntervalSince1970: 1_000_010))
        #expect(reopened.info(forKey: "b")?.lastAccessedAt == Date(timeIntervalSince1970: 1_000_000))
        #expect(reopened.info(forKey: "file")?.lastAccessedAt == Date(timeIntervalSince1970: 1_000_010))
        try reopened.close()
    }
}
