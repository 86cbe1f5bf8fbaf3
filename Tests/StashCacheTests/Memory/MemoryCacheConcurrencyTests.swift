import Foundation
import StashCore
import StashTestSupport
import Testing
@testable import StashCache

/// Many tasks hammering one cache; the invariants and every entry's fate are checked after.
struct MemoryCacheConcurrencyTests {
    /// What one task last did to one of its keys.
    enum LastWrite: Sendable {
        case set(Int)
        case removed
    }

    @Test func mixedOperationsFromManyTasksLoseNothing() async {
        let evicted = LockedValue<Set<[Int]>>([])   // [key, value] pairs told to the callback
        let clock = ManualClock()
        let cache = MemoryCache<Int, Int>(
            configuration: .init(countLimit: 200, costLimit: 2_000, onEvict: { key, value, _ in
                evicted.withLock { _ = $0.insert([key, value]) }
            }, clock: clock),
        )
        let tasks = 8
        let keysPerTask = 100
        let results = await withTaskGroup(of: [Int: LastWrite].self) { group in
            for task in 0..<tasks {
                group.addTask {
                    var generator = SeededGenerator(seed: UInt64(task))
                    var last: [Int: LastWrite] = [:]
                    for step in 0..<4_000 {
                        // Each task owns its keys, so "the last value" of a key is well defined.
                        let key = task * keysPerTask + Int.random(in: 0..<keysPerTask, using: &generator)
                        let value = task * 1_000_000 + step
                        switch Int.random(in: 0..<100, using: &generator) {
                        case 0..<45:
                            cache.set(value, forKey: key, cost: Int.random(in: 0..<20, using: &generator))
                            last[key] = .set(value)
                        case 45..<50:
                            cache.set(value, forKey: key, expiry: .after(3_600))
                            last[key] = .set(value)
                        case 50..<85:
                            if let found = cache.value(forKey: key), case .set(let expected) = last[key] {
                                #expect(found == expected)
                            }
                        case 85..<97:
                            cache.removeValue(forKey: key)
                            last[key] = .removed
                        case 97..<99:
                            cache.trim(toCount: 150)
                        default:
                            cache.trim(toCost: 1_500)
                        }
                    }
                    return last
                }
            }
            return await group.reduce(into: [Int: LastWrite]()) { $0.merge($1) { a, _ in a } }
        }

        #expect(cache.checkInvariants() == [])
        #expect(cache.count <= 200)
        #expect(cache.totalCost <= 2_000)
        let stats = cache.statistics
        #expect(stats.count == cache.count)
        let evictedPairs = evicted.withLock { $0 }
        var present = 0
        for (key, write) in results {
            switch write {
            case .removed:
                #expect(cache.contains(key) == false)
            case .set(let value):
                if let found = cache.value(forKey: key) {
                    #expect(found == value)
                    #expect(!evictedPairs.contains([key, value]))
                    present += 1
                } else {
                    // Gone only if the callback was told about exactly this value.
                    #expect(evictedPairs.contains([key, value]), "key \(key) lost its value \(value)")
                }
            }
        }
        #expect(present == stats.count)
        #expect(stats.evictions == evictedPairs.count)
    }
}
