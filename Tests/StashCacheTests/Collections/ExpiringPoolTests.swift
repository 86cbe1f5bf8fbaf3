import Foundation
import StashCore
import StashTestSupport
import Testing
@testable import StashCache

struct ExpiringPoolTests {
    let clock = ManualClock(now: Date(timeIntervalSinceReferenceDate: 500_000))

    @Test func aFullPoolEvictsTheEntryClosestToExpiry() {
        let pool = ExpiringPool<String, Int>(countLimit: 3, defaultExpiry: .after(100), clock: clock)
        pool.set(1, forKey: "default")                       // expires at +100
        pool.set(2, forKey: "soon", expiry: .after(10))
        pool.set(3, forKey: "never", expiry: .never)
        let first = pool.set(4, forKey: "late", expiry: .after(1_000))
        #expect(first?.key == "soon" && first?.value == 2)
        let second = pool.set(5, forKey: "later", expiry: .after(2_000))
        #expect(second?.key == "default")
        let third = pool.set(6, forKey: "latest", expiry: .after(3_000))
        #expect(third?.key == "late")
        #expect(pool.entries.map(\.key) == ["later", "latest", "never"])
        #expect(pool.set(7, forKey: "later") == nil)         // a replacement evicts nothing
        #expect(pool.count == 3)
        #expect(pool.checkInvariants() == [])
    }

    @Test func expiredEntriesAreNeverReturned() {
        let pool = ExpiringPool<String, Int>(countLimit: 10, defaultExpiry: .after(60), clock: clock)
        pool["a"] = 1
        pool.set(2, forKey: "b", expiry: .after(120))
        clock.advance(by: 60)
        #expect(pool["a"] == nil)
        #expect(pool.contains("b"))
        #expect(pool.count == 1)
        pool.set(3, forKey: "c", expiry: .at(clock.now.addingTimeInterval(-1)))
        #expect(!pool.contains("c"))
        #expect(pool.removeValue(forKey: "b") == 2)
        #expect(pool.count == 0)
    }

    @Test func slidingEntriesStayWhileRead() {
        let pool = ExpiringPool<String, Int>(countLimit: 2, defaultExpiry: .sliding(10), clock: clock)
        pool["kept"] = 1
        pool["idle"] = 2
        for _ in 0..<3 {
            clock.advance(by: 6)
            #expect(pool["kept"] == 1)
        }
        #expect(pool.entries.map(\.key) == ["kept"])
        pool.removeAll()
        #expect(pool.count == 0)
    }

    @Test func aZeroCapacityPoolHoldsNothing() {
        let pool = ExpiringPool<Int, Int>(countLimit: 0, defaultExpiry: .never, clock: clock)
        pool[1] = 1
        #expect(pool[1] == nil)
    }

    @Test func manyRandomOperationsKeepTheHeapSound() {
        var generator = SeededGenerator(seed: 3)
        let pool = ExpiringPool<Int, Int>(countLimit: 40, defaultExpiry: .after(50), clock: clock)
        for step in 0..<3_000 {
            let key = Int.random(in: 0..<100, using: &generator)
            switch Int.random(in: 0..<4, using: &generator) {
            case 0: pool.set(step, forKey: key, expiry: .after(Double.random(in: 1..<100, using: &generator)))
            case 1: pool.set(step, forKey: key, expiry: .sliding(20))
            case 2: _ = pool[key]
            default: pool.removeValue(forKey: key)
            }
            if step % 100 == 0 { clock.advance(by: 7) }
        }
        #expect(pool.count <= 40)
        #expect(pool.checkInvariants() == [])
    }

    @Test func saveAndLoadRoundTrip() throws {
        let folder = TemporaryFolder("pool")
        let url = folder.file("pool.json")
        let pool = ExpiringPool<String, [Int]>(countLimit: 5, defaultExpiry: .after(100), clock: clock)
        pool["a"] = [1]
        pool.set([2, 2], forKey: "b", expiry: .never)
        pool.set([3], forKey: "c", expiry: .sliding(30))
        pool.set([4], forKey: "d", expiry: .after(10))
        try pool.save(to: url)

        clock.advance(by: 20)                                 // "d" expires while the app is away
        let loaded = try ExpiringPool<String, [Int]>(contentsOf: url, countLimit: 5, defaultExpiry: .after(100), clock: clock)
        #expect(loaded.entries.map(\.key) == ["c", "a", "b"])
        #expect(loaded["b"] == [2, 2])
        #expect(loaded["c"] == [3])                           // "c" slides: read at +20, alive until +50
        clock.advance(by: 25)
        #expect(loaded["c"] == [3])
        clock.advance(by: 60)
        #expect(loaded["a"] == nil)
        #expect(loaded.checkInvariants() == [])

        let smaller = try ExpiringPool<String, [Int]>(contentsOf: url, countLimit: 1, defaultExpiry: .after(1), clock: clock)
        #expect(smaller.entries.map(\.key) == ["b"])          // the farthest deadline stays
    }

    @Test func loadingReportsMissingCorruptAndNewerFiles() throws {
        let folder = TemporaryFolder("pool")
        let url = folder.file("pool.json")
        expectCollectionError(.notFound) { try ExpiringPool<String, Int>(contentsOf: url, countLimit: 1, defaultExpiry: .never) }

        try FileStore.write(Data("{\"format\":\"stash.pool\",\"vers".utf8), to: url)
        expectCollectionError(.corruptFile) { try ExpiringPool<String, Int>(contentsOf: url, countLimit: 1, defaultExpiry: .never) }

        try FileStore.write(Data(#"{"format":"stash.pool","version":1,"items":[{"key":"a","value":"not an int"}]}"#.utf8), to: url)
        let error = #expect(throws: StashError.self) { try ExpiringPool<String, Int>(contentsOf: url, countLimit: 1, defaultExpiry: .never) }
        #expect(error?.code == .corruptFile)
        #expect(error?.path == url.path)

        try FileStore.write(Data(#"{"format":"stash.queue","version":1,"items":[]}"#.utf8), to: url)
        expectCollectionError(.corruptFile) { try ExpiringPool<String, Int>(contentsOf: url, countLimit: 1, defaultExpiry: .never) }

        try FileStore.write(Data(#"{"format":"stash.pool","version":9,"items":[]}"#.utf8), to: url)
        expectCollectionError(.unsupportedVersion) { try ExpiringPool<String, Int>(contentsOf: url, countLimit: 1, defaultExpiry: .never) }
        #expect(try FileStore.read(url) == Data(#"{"format":"stash.pool","version":9,"items":[]}"#.utf8))
    }

    @Test func savingAnUnencodableValueFailsAndKeepsTheOldFile() throws {
        let folder = TemporaryFolder("pool")
        let url = folder.file("pool.json")
        let pool = ExpiringPool<String, Double>(countLimit: 2, defaultExpiry: .never, clock: clock)
        pool["ok"] = 1
        try pool.save(to: url)
        pool["nan"] = .nan
        expectCollectionError(.unsupportedValue) { try pool.save(to: url) }
        #expect(try ExpiringPool<String, Double>(contentsOf: url, countLimit: 2, defaultExpiry: .never, clock: clock).entries.map(\.key) == ["ok"])
    }
}
