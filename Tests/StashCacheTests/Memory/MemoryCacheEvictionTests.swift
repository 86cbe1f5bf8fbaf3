import Foundation
import StashCore
import Testing
@testable import StashCache

/// The eviction callback, its reasons, re-entrancy, and purge on memory pressure.
struct MemoryCacheEvictionTests {
    /// Collects what a cache reports, thread-safely.
    final class Recorder: Sendable {
        let events = LockedValue<[(key: Int, value: Int, reason: EvictionReason)]>([])
        var reasons: [EvictionReason] { events.withLock { $0.map(\.reason) } }
        var keys: [Int] { events.withLock { $0.map(\.key) } }
        func record(_ key: Int, _ value: Int, _ reason: EvictionReason) {
            events.withLock { $0.append((key, value, reason)) }
        }
        func clear() { events.withLock { $0.removeAll() } }
    }

    @Test func reportsEachReasonWithKeyAndValue() {
        let recorder = Recorder()
        let clock = ManualClock()
        let cache = MemoryCache<Int, Int>(
            configuration: .init(countLimit: 3, costLimit: 10, onEvict: recorder.record, clock: clock)
        )
        cache.set(10, forKey: 1)
        cache.set(20, forKey: 2)
        cache.set(30, forKey: 3)
        cache.set(40, forKey: 4)
        #expect(recorder.events.withLock { $0.map { [$0.key, $0.value] } } == [[1, 10]])
        #expect(cache.removeValue(forKey: 2) == 20)     // not an eviction
        cache.set(50, forKey: 5, cost: 6)
        cache.set(60, forKey: 6, cost: 6)               // 3 goes for the count, 4 and 5 for the cost
        cache.set(70, forKey: 7, expiry: .after(1))
        clock.advance(by: 1)
        _ = cache[6]                                    // marked: second chance
        cache.set(80, forKey: 8)
        cache.set(90, forKey: 9)
        cache.trim(toCount: 1)                          // 6 was read, 8 and 9 were not: they go
        cache.set(100, forKey: 10)
        cache.purge(keeping: 0.5)
        cache.removeAll()
        cache.set(110, forKey: 11)
        cache.set(111, forKey: 11)                      // a replacement is not an eviction either
        #expect(recorder.keys == [1, 3, 4, 5, 7, 8, 9, 6, 10])
        #expect(recorder.reasons == [
            .countLimit, .countLimit, .costLimit, .costLimit, .expired, .trimmed, .trimmed, .purged, .removedAll,
        ])
        #expect(cache.statistics.evictions == 8)
    }

    @Test func theCallbackMayCallBackIntoTheCache() {
        // A callback that writes back into the cache would deadlock if the lock were held.
        let archive = MemoryCache<Int, Int>()
        let box = LockedValue<MemoryCache<Int, Int>?>(nil)
        let cache = MemoryCache<Int, Int>(configuration: .init(countLimit: 2, onEvict: { key, value, _ in
            archive[key] = value
            if let cache = box.withLock({ $0 }) {
                _ = cache.count
                _ = cache[key]
            }
        }))
        box.withLock { $0 = cache }
        for key in 0..<10 { cache[key] = key * 10 }
        #expect(archive.count == 8)
        #expect(archive[0] == 0 && archive[7] == 70)
        #expect(cache.checkInvariants() == [])
    }

    @Test func theCostFunctionMayCallBackIntoTheCache() {
        let box = LockedValue<MemoryCache<String, String>?>(nil)
        let cache = MemoryCache<String, String>(configuration: .init(cost: { key, value in
            _ = box.withLock({ $0 })?.contains(key)
            return value.utf8.count
        }))
        box.withLock { $0 = cache }
        cache["a"] = "four"
        #expect(cache.totalCost == 4)
    }

    @Test func purgeDropsEverythingOrKeepsTheMostRecentShare() {
        let recorder = Recorder()
        let cache = MemoryCache<Int, Int>(configuration: .init(onEvict: recorder.record))
        for key in 0..<100 { cache.set(key, forKey: key, cost: 1) }
        for key in 0..<10 { _ = cache[key] }
        cache.purge(keeping: 0.1)
        #expect(cache.count == 10)
        #expect((0..<10).allSatisfy(cache.contains))
        #expect(Set(recorder.reasons) == [.purged])
        cache.purge()
        #expect(cache.count == 0)
        #expect(cache.totalCost == 0)
        cache.purge(keeping: .nan)
        cache[1] = 1
        #expect(cache[1] == 1)
        #expect(cache.checkInvariants() == [])
    }

    @Test func purgeKeepsTheCostShareToo() {
        let cache = MemoryCache<Int, Int>()
        cache.set(1, forKey: 1, cost: 90)
        cache.set(2, forKey: 2, cost: 5)
        cache.set(3, forKey: 3, cost: 5)
        cache.purge(keeping: 0.5)               // half the count allows 1 entry, half the cost 50
        #expect(cache.count == 1)
        #expect(cache.contains(3))
    }
}
