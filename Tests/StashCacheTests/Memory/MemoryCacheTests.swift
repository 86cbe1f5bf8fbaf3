import Foundation
import StashCore
import StashTestSupport
import Testing
@testable import StashCache

/// Reads, writes, removals, recency order and the count and cost limits.
struct MemoryCacheTests {
    @Test func storesReadsReplacesAndRemoves() {
        let cache = MemoryCache<String, Int>()
        #expect(cache.value(forKey: "a") == nil)
        cache.set(1, forKey: "a")
        cache["b"] = 2
        #expect(cache.value(forKey: "a") == 1)
        #expect(cache["b"] == 2)
        cache.set(10, forKey: "a")
        #expect(cache["a"] == 10)
        #expect(cache.count == 2)
        #expect(cache.contains("a"))
        #expect(cache.removeValue(forKey: "a") == 10)
        #expect(cache.removeValue(forKey: "a") == nil)
        cache["b"] = nil
        #expect(!cache.contains("b"))
        #expect(cache.count == 0)
        #expect(cache.checkInvariants() == [])
    }

    @Test func evictsTheLeastRecentlyUsedFirst() {
        let cache = MemoryCache<Int, String>(configuration: .init(countLimit: 3))
        cache[1] = "one"
        cache[2] = "two"
        cache[3] = "three"
        _ = cache[1]                 // 1 is now the most recent: 2 is the oldest
        cache[4] = "four"
        #expect(cache[2] == nil)
        #expect(cache[1] == "one")
        cache[3] = "three again"     // rewriting makes 3 recent: 4 is the oldest
        cache[5] = "five"
        #expect(cache[4] == nil)
        #expect(cache.count == 3)
        #expect([1, 3, 5].allSatisfy(cache.contains))
        #expect(cache.checkInvariants() == [])
    }

    @Test func containsDoesNotRefreshRecency() {
        let cache = MemoryCache<Int, Int>(configuration: .init(countLimit: 2))
        cache[1] = 1
        cache[2] = 2
        #expect(cache.contains(1))
        cache[3] = 3
        #expect(!cache.contains(1))
        #expect(cache.contains(2))
    }

    @Test func countLimitHoldsAfterEveryWrite() {
        let cache = MemoryCache<Int, Int>(configuration: .init(countLimit: 10))
        for key in 0..<100 {
            cache[key] = key
            #expect(cache.count == min(key + 1, 10))
        }
        #expect(Set((0..<100).filter(cache.contains)) == Set(90..<100))
        #expect(cache.checkInvariants() == [])
    }

    @Test func costLimitEvictsOldestUntilItHolds() {
        let cache = MemoryCache<String, Int>(configuration: .init(costLimit: 10))
        cache.set(1, forKey: "a", cost: 4)
        cache.set(2, forKey: "b", cost: 4)
        #expect(cache.totalCost == 8)
        cache.set(3, forKey: "c", cost: 5)            // 13 > 10: "a" goes
        #expect(cache["a"] == nil)
        #expect(cache.totalCost == 9)
        cache.set(4, forKey: "b", cost: 1)            // replacing adjusts the total
        #expect(cache.totalCost == 6)
        cache.set(5, forKey: "huge", cost: 11)        // costlier than the limit on its own
        #expect(cache["huge"] == nil)
        #expect(cache.totalCost <= 10)
        #expect(cache.checkInvariants() == [])
    }

    @Test func costFunctionPricesEntriesWrittenWithoutACost() {
        let cache = MemoryCache<String, String>(configuration: .init(costLimit: 10, cost: { _, value in value.count }))
        cache["a"] = "12345"
        cache["b"] = "123"
        #expect(cache.totalCost == 8)
        cache.set("x", forKey: "c", cost: 7)          // an explicit cost wins over the function
        #expect(cache.totalCost == 10)
        #expect(cache["a"] == nil)
        cache.set("neg", forKey: "d", cost: -5)       // negative costs count as zero
        #expect(cache.totalCost == 10)
    }

    @Test func trimsToCountAndCost() {
        let cache = MemoryCache<Int, Int>()
        for key in 0..<10 { cache.set(key, forKey: key, cost: 1) }
        _ = cache[0]
        cache.trim(toCount: 5)
        #expect(cache.count == 5)
        #expect(cache.contains(0))
        #expect(Set((0..<10).filter(cache.contains)) == [0, 6, 7, 8, 9])
        cache.trim(toCost: 2)
        #expect(cache.totalCost == 2)
        #expect(Set((0..<10).filter(cache.contains)) == [9, 0])
        cache.trim(toCount: -1)
        #expect(cache.count == 0)
        #expect(cache.checkInvariants() == [])
    }

    @Test func removeAllEmptiesTheCache() {
        let cache = MemoryCache<Int, Int>(configuration: .init(countLimit: 100))
        for key in 0..<50 { cache.set(key, forKey: key, cost: 2) }
        cache.removeAll()
        #expect(cache.count == 0)
        #expect(cache.totalCost == 0)
        cache[7] = 7
        #expect(cache[7] == 7)
        #expect(cache.checkInvariants() == [])
    }

    @Test func statisticsCountHitsMissesAndEvictions() {
        let cache = MemoryCache<Int, Int>(configuration: .init(countLimit: 2))
        #expect(cache.statistics.hitRatio == nil)
        cache[1] = 1
        cache[2] = 2
        cache[3] = 3
        _ = cache[3]
        _ = cache[2]
        _ = cache[1]
        let stats = cache.statistics
        #expect(stats == .init(hits: 2, misses: 1, evictions: 1, count: 2, totalCost: 0))
        #expect(stats.hitRatio == 2.0 / 3.0)
        cache.resetStatistics()
        #expect(cache.statistics == .init(hits: 0, misses: 0, evictions: 0, count: 2, totalCost: 0))
    }

    @Test func survivesManyRandomOperationsAgainstAReferenceModel() {
        // Second-chance (CLOCK) recency: a write moves its key to the newest end, unmarked; a
        // hit marks it; eviction moves marked keys from the oldest end to the newest,
        // unmarked, and drops the first unmarked one.
        let seed: UInt64 = 42
        print("MemoryCacheTests reference model: seed \(seed)")
        var generator = SeededGenerator(seed: seed)
        let cache = MemoryCache<Int, Int>(configuration: .init(countLimit: 50))
        var model: [(key: Int, marked: Bool)] = []      // oldest first
        var values: [Int: Int] = [:]
        for step in 0..<5_000 {
            let key = Int.random(in: 0..<80, using: &generator)
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<5:
                cache[key] = step
                model.removeAll { $0.key == key }
                model.append((key, false))
                values[key] = step
                if model.count > 50 {
                    while model[0].marked { model.append((model.removeFirst().key, false)) }
                    values[model.removeFirst().key] = nil
                }
            case 5..<8:
                #expect(cache[key] == values[key])
                if let index = model.firstIndex(where: { $0.key == key }) { model[index].marked = true }
            default:
                #expect(cache.removeValue(forKey: key) == values.removeValue(forKey: key))
                model.removeAll { $0.key == key }
            }
        }
        #expect(cache.count == model.count)
        #expect(Set(values.keys) == Set(model.map(\.key)))
        #expect(values.allSatisfy { cache.contains($0.key) })
        #expect(cache.checkInvariants() == [])
    }
}
