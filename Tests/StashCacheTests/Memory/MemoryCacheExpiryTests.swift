import Foundation
import StashCore
import StashTestSupport
import Testing
@testable import StashCache

/// ExpiryPolicy, sliding expiry and the age limit, driven by a manual clock.
struct MemoryCacheExpiryTests {
    let clock = ManualClock(now: Date(timeIntervalSinceReferenceDate: 1_000_000))

    @Test func entriesExpireAfterTheirInterval() {
        let cache = MemoryCache<String, Int>(configuration: .init(clock: clock))
        cache.set(1, forKey: "short", expiry: .after(10))
        cache.set(2, forKey: "long", expiry: .after(100))
        cache.set(3, forKey: "forever")
        clock.advance(by: 9.9)
        #expect(cache["short"] == 1)
        clock.advance(by: 0.1)
        #expect(cache["short"] == nil)
        #expect(cache.count == 2)
        clock.advance(by: 1_000)
        #expect(cache["long"] == nil)
        #expect(cache["forever"] == 3)
        #expect(cache.checkInvariants() == [])
    }

    @Test func fixedDatesAndThePerCacheDefault() {
        let cache = MemoryCache<String, Int>(configuration: .init(defaultExpiry: .after(60), clock: clock))
        cache["default"] = 1
        cache.set(2, forKey: "date", expiry: .at(clock.now.addingTimeInterval(30)))
        cache.set(3, forKey: "never", expiry: .never)
        clock.advance(by: 30)
        #expect(!cache.contains("date"))
        #expect(cache.contains("default"))
        clock.advance(by: 30)
        #expect(!cache.contains("default"))
        #expect(cache["never"] == 3)
    }

    /// The default clock is read coarsely: deadlines a second or more away, or already past,
    /// are still told apart exactly.
    @Test func theSystemClocksCoarseReadingKeepsDeadlines() {
        let cache = MemoryCache<String, Int>(configuration: .init(ageLimit: 3600))
        cache.set(1, forKey: "hour", expiry: .after(3600))
        cache.set(2, forKey: "past", expiry: .at(Date().addingTimeInterval(-1)))
        cache.set(3, forKey: "second", expiry: .at(Date().addingTimeInterval(1)))
        #expect(cache["hour"] == 1)
        #expect(cache["past"] == nil)
        #expect(cache["second"] == 3)
        cache.trim(toAge: 1)
        #expect(cache.count == 2, "entries written a moment ago are younger than a second")
        cache.trim(toAge: -1)
        #expect(cache.count == 0, "every entry is older than a second in the future")
    }

    @Test func anExpiryInThePastRemovesTheKey() {
        let cache = MemoryCache<String, Int>(configuration: .init(clock: clock))
        cache["a"] = 1
        cache.set(2, forKey: "a", expiry: .at(clock.now.addingTimeInterval(-1)))
        #expect(cache["a"] == nil)
        cache.set(3, forKey: "b", expiry: .after(.nan))
        #expect(cache.count == 0)
    }

    @Test func slidingExpiryExtendsOnEveryHit() {
        let cache = MemoryCache<String, Int>(configuration: .init(clock: clock))
        cache.set(1, forKey: "session", expiry: .sliding(10))
        for _ in 0..<5 {
            clock.advance(by: 8)
            #expect(cache["session"] == 1)
        }
        clock.advance(by: 8)
        #expect(cache.contains("session"))      // contains is not a hit: no extension
        clock.advance(by: 2)
        #expect(cache["session"] == nil)
    }

    @Test func ageLimitCapsEveryEntryIncludingSlidingOnes() {
        let cache = MemoryCache<String, Int>(configuration: .init(ageLimit: 20, clock: clock))
        cache["plain"] = 1
        cache.set(2, forKey: "sliding", expiry: .sliding(10))
        cache.set(3, forKey: "later", expiry: .after(100))
        for _ in 0..<3 {
            clock.advance(by: 6)
            #expect(cache["sliding"] == 2)
        }
        clock.advance(by: 2)                    // 20 s after the writes
        #expect(cache.count == 0)
        cache["fresh"] = 4                      // a rewrite starts a new age
        clock.advance(by: 19)
        #expect(cache["fresh"] == 4)
    }

    @Test func trimToAgeDropsOldWritesWhateverTheirRecency() {
        let cache = MemoryCache<Int, Int>(configuration: .init(clock: clock))
        for key in 0..<10 {
            cache[key] = key
            clock.advance(by: 1)
        }
        _ = cache[0]
        cache.trim(toAge: 5)                    // key k was written 10 - k seconds ago
        #expect(Set((0..<10).filter(cache.contains)) == [6, 7, 8, 9])
        #expect(cache.count == 4)
        #expect(cache.checkInvariants() == [])
    }

    @Test func removeExpiredReleasesEntriesNobodyReads() {
        let evicted = LockedValue<[String]>([])
        let cache = MemoryCache<String, Int>(
            configuration: .init(onEvict: { key, _, reason in
                evicted.withLock { $0.append("\(key):\(reason)") }
            }, clock: clock),
        )
        cache.set(1, forKey: "a", expiry: .after(1))
        cache.set(2, forKey: "b", expiry: .after(1))
        cache.set(3, forKey: "c")
        clock.advance(by: 1)
        cache.removeExpired()
        #expect(evicted.withLock { $0.sorted() } == ["a:expired", "b:expired"])
        #expect(cache.statistics.evictions == 2)
        #expect(cache.checkInvariants() == [])
    }

    @Test func manyDeadlinesExpireInOrder() {
        var generator = SeededGenerator(seed: 7)
        let cache = MemoryCache<Int, Int>(configuration: .init(clock: clock))
        var deadlines: [Int: Double] = [:]
        for key in 0..<500 {
            let seconds = Double.random(in: 1..<1_000, using: &generator)
            cache.set(key, forKey: key, expiry: .after(seconds))
            deadlines[key] = seconds
        }
        var elapsed = 0.0
        while elapsed < 1_000 {
            clock.advance(by: 50)
            elapsed += 50
            #expect(cache.count == deadlines.values.filter { $0 > elapsed }.count)
            #expect(cache.checkInvariants() == [])
        }
    }
}
