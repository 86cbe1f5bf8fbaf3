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

    /// A hit takes its key's stripe alone: with the policy lock held (as a write or an
    /// eviction holds it), reads on another thread still finish.
    @Test func readsDoNotWaitForThePolicyLock() async {
        let cache = MemoryCache<Int, Int>(configuration: .init(countLimit: 10_000))
        for key in 0..<1_000 { cache.set(key * 2, forKey: key) }
        let done = DispatchSemaphore(value: 0)
        let right = LockedValue(false)
        let finished = await offThePool {
            cache.state.withLock { _ -> Bool in
                Thread {
                    let found = (0..<1_000).allSatisfy { cache.value(forKey: $0) == $0 * 2 } && cache.contains(7)
                    right.withLock { $0 = found }
                    done.signal()
                }.start()
                return done.wait(timeout: .now() + 20) == .success
            }
        }
        if !finished { await offThePool { done.wait() } }
        #expect(finished, "a read waited for the policy lock")
        #expect(right.withLock { $0 })
        #expect(cache.statistics.hits == 1_000)
    }

    /// What ``noReadReturnsAnExpiredValueWhileWritersRace()`` stores: a value that knows its
    /// deadline.
    struct Stamp: Sendable {
        var deadline: Double
        var slides: Bool
    }

    /// No read returns a value past its deadline while another thread writes and time moves:
    /// each value carries its deadline, so a reader can tell one that had expired before it
    /// asked. Time moves in steps, and the writer waits after each, so that the entries a
    /// step expired sit in the cache while the readers read.
    @Test func noReadReturnsAnExpiredValueWhileWritersRace() async {
        let seed = SeededGenerator.freshSeed(for: "MemoryCacheConcurrencyTests.noReadReturnsAnExpiredValueWhileWritersRace")
        let clock = ManualClock(now: Date(timeIntervalSinceReferenceDate: 1_000))
        let cache = MemoryCache<Int, Stamp>(configuration: .init(countLimit: 400, clock: clock))
        let writing = LockedValue(true)
        let expired = LockedValue(0)
        let hits = LockedValue(0)
        let readers = (1...3).map { thread in
            ThreadTask {
                var generator = SeededGenerator(seed: seed &+ UInt64(thread))
                while writing.withLock({ $0 }) {
                    let key = Int.random(in: 0..<500, using: &generator)
                    let asked = clock.now.timeIntervalSinceReferenceDate
                    guard let stamp = cache.value(forKey: key) else { continue }
                    hits.withLock { $0 += 1 }
                    // A sliding entry's deadline moves with each hit; a fixed one's does not.
                    if !stamp.slides, stamp.deadline <= asked { expired.withLock { $0 += 1 } }
                }
                return 0
            }
        }
        await offThePool {
            var generator = SeededGenerator(seed: seed)
            for step in 0..<5_000 {
                let key = Int.random(in: 0..<500, using: &generator)
                let now = clock.now.timeIntervalSinceReferenceDate
                let ahead = Double(Int.random(in: 1...30, using: &generator)) / 1_000
                if step % 7 == 0 {
                    cache.set(Stamp(deadline: now + ahead, slides: true), forKey: key, expiry: .sliding(ahead))
                } else {
                    cache.set(Stamp(deadline: now + ahead, slides: false), forKey: key, expiry: .at(Date(timeIntervalSinceReferenceDate: now + ahead)))
                }
                if step % 10 == 9 {
                    clock.advance(by: 0.002)
                    usleep(200)
                }
            }
        }
        writing.withLock { $0 = false }
        for reader in readers { _ = await reader.value }
        #expect(expired.withLock { $0 } == 0, "seed \(seed)")
        #expect(hits.withLock { $0 } > 0, "seed \(seed): the readers never hit")
        #expect(cache.checkInvariants() == [], "seed \(seed)")
    }

    /// Every hit and miss of every thread is counted once, whichever stripe it fell on.
    @Test func statisticsCountEveryReadOfEveryThread() async {
        let cache = MemoryCache<Int, Int>()
        for key in 0..<256 { cache.set(key, forKey: key) }
        let threads = (0..<4).map { thread in
            ThreadTask {
                for round in 0..<2_000 { _ = cache.value(forKey: (round &* 31 &+ thread) % 512) }
                return 0
            }
        }
        for thread in threads { _ = await thread.value }
        let statistics = cache.statistics
        // Keys below 256 hit, the others miss: half of each thread's reads.
        #expect(statistics.hits == 4_000)
        #expect(statistics.misses == 4_000)
    }
}
