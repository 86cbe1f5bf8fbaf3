import Foundation
import StashCache
import StashCore
import StashTestSupport
import Testing

struct DiskCacheLimitTests {
    /// Writes `count` entries `k0`, `k1`… one second apart, so that each is less recently
    /// used than the next.
    private func fill(_ cache: DiskCache, _ fixture: DiskCacheFixture, count: Int, size: Int = 10) throws {
        for index in 0..<count {
            try cache.set(.filled(UInt8(index), size), forKey: "k\(index)")
            fixture.clock.advance(by: 1)
        }
    }

    @Test func countLimitTrimsLeastRecentlyUsedDownToTheRatio() async throws {
        let fixture = DiskCacheFixture()
        let cache = try fixture.open { $0.sizeLimit = nil; $0.countLimit = 10 }
        try fill(cache, fixture, count: 10)
        _ = cache.data(forKey: "k0")    // k0 becomes the most recently used
        fixture.clock.advance(by: 1)
        try cache.set(.filled(99, 10), forKey: "k10")   // 11 entries: over the limit
        try await cache.flush()          // runs after the background trim the write scheduled
        #expect(try cache.entries().map(\.key).sorted() == ["k0", "k10", "k7", "k8", "k9"])
    }

    @Test func byteLimitTrimsToTheConfiguredRatio() async throws {
        let fixture = DiskCacheFixture()
        let cache = try fixture.open {
            $0.sizeLimit = 1000
            $0.trimRatio = 0.8
            $0.inlineThreshold = 50
        }
        try fill(cache, fixture, count: 10, size: 100)    // mixed: all in files
        try cache.set(.filled(1, 100), forKey: "extra")   // 1,100 bytes: over the limit
        try await cache.trim()
        #expect(cache.totalSize == 800)
        let keys = Set(try cache.entries().map(\.key))
        #expect(keys == ["k3", "k4", "k5", "k6", "k7", "k8", "k9", "extra"])
        try cache.close()
        let inspection = try ManifestInspection(directory: fixture.directory)
        #expect(inspection.files.count == keys.count && inspection.orphanFiles.isEmpty)
    }

    @Test func ageLimitRemovesEntriesWrittenTooLongAgo() async throws {
        let fixture = DiskCacheFixture()
        let cache = try fixture.open { $0.ageLimit = 100 }
        try cache.set(.filled(1, 10), forKey: "old")
        fixture.clock.advance(by: 60)
        try cache.set(.filled(2, 10), forKey: "new")
        fixture.clock.advance(by: 50)
        #expect(!cache.contains("old") && cache.data(forKey: "new") != nil)
        try await cache.removeExpired()
        #expect(try cache.entries().map(\.key) == ["new"])
    }

    @Test func freeDiskFloorHalvesTheCache() async throws {
        let fixture = DiskCacheFixture()
        let cache = try fixture.open {
            $0.sizeLimit = nil
            $0.minimumFreeDiskSpace = Int64.max / 2
            $0.flushDelay = 3600    // no background trim in the middle of the writes
        }
        try await cache.flush()     // after the housekeeping that opening schedules
        try fill(cache, fixture, count: 10, size: 100)
        try await cache.trim()
        #expect(cache.totalSize <= 500)
        #expect(try cache.entries().map(\.key).sorted() == ["k5", "k6", "k7", "k8", "k9"])
    }

    @Test func withinLimitsNothingIsTrimmed() async throws {
        let fixture = DiskCacheFixture()
        let cache = try fixture.open { $0.sizeLimit = 10_000; $0.countLimit = 100; $0.ageLimit = 3600 }
        try fill(cache, fixture, count: 20)
        #expect(try await cache.trim() == 0)
        #expect(cache.count == 20)
    }

    @Test func expiredEntriesAreNeverReturnedAndSweptAway() async throws {
        let fixture = DiskCacheFixture()
        let cache = try fixture.open { $0.defaultExpiry = .after(100) }
        try cache.set(.filled(1, 10), forKey: "default")
        try cache.set(.filled(2, 10), forKey: "at", expiry: .at(fixture.clock.now.addingTimeInterval(50)))
        try cache.set(.filled(3, 10), forKey: "never", expiry: .never)
        try cache.set(.filled(4, 10), forKey: "past", expiry: .at(fixture.clock.now.addingTimeInterval(-1)))
        #expect(!cache.contains("past"))
        fixture.clock.advance(by: 50)
        #expect(cache.data(forKey: "at") == nil)
        #expect(cache.data(forKey: "default") == .filled(1, 10))
        fixture.clock.advance(by: 50)
        #expect(!cache.contains("default") && cache.fileURL(for: "default") == nil)
        try await cache.removeExpired()
        #expect(try cache.entries().map(\.key) == ["never"])
        #expect(cache.count == 1)
    }

    @Test func slidingExpiryExtendsOnEachReadAndSurvivesReopen() async throws {
        let fixture = DiskCacheFixture()
        let cache = try fixture.open()
        try cache.set(.filled(1, 10), forKey: "session", expiry: .sliding(60))
        for _ in 0..<5 {
            fixture.clock.advance(by: 45)
            #expect(cache.data(forKey: "session") != nil)
        }
        try cache.close()
        let reopened = try fixture.open()
        fixture.clock.advance(by: 45)
        #expect(reopened.data(forKey: "session") != nil)
        fixture.clock.advance(by: 61)
        #expect(reopened.data(forKey: "session") == nil)
    }

    @Test func readsWithinTheAccessResolutionLeaveTheDatesThenALaterReadMovesThemDurably() async throws {
        let fixture = DiskCacheFixture()
        let cache = try fixture.open()
        try cache.set(.filled(1, 10), forKey: "session", expiry: .sliding(60))
        fixture.clock.advance(by: DiskCache.accessDateResolution / 2)
        let early = try #require(cache.entry(forKey: "session"))
        #expect(early.info.lastAccessedAt == Date(timeIntervalSince1970: 1_000_000))
        #expect(early.info.expiresAt == Date(timeIntervalSince1970: 1_000_060))
        fixture.clock.advance(by: DiskCache.accessDateResolution)
        let later = try #require(cache.entry(forKey: "session"))
        let moved = 1_000_000 + DiskCache.accessDateResolution * 1.5
        #expect(later.info.lastAccessedAt == Date(timeIntervalSince1970: moved))
        #expect(later.info.expiresAt == Date(timeIntervalSince1970: moved + 60))
        try await cache.flush()
        try cache.close()
        let reopened = try fixture.open()
        #expect(reopened.info(forKey: "session")?.lastAccessedAt == Date(timeIntervalSince1970: moved))
    }
}
