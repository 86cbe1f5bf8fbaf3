import Foundation
import ServiceLifecycle
import StashCore
import StashPostgres
import Testing
import StashCache
import PostgresNIO

@Suite(.enabled(if: TestPostgres.enabled, TestPostgres.skipReason))
struct SharedCacheExpiryTests {
    @Test func holdsTheByteLimitUnderSustainedWrites() async throws {
        let limit = 256 * 1024
        try await TestPostgres.withCache({ $0.sizeLimit = limit; $0.expiryBatchSize = 100 }) { cache in
            let largest = LockedValue(0)
            let lastWritten = LockedValue("")
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<8 {
                    group.addTask {
                        for index in 0..<160 {
                            try await cache.set(Data(repeating: UInt8(index % 256), count: 1024), forKey: "w\(writer)-\(index)")
                            lastWritten.withLock { $0 = "w\(writer)-\(index)" }
                            if index % 20 == 19 {
                                let bytes = try await TestSQL.bytes(cache)
                                largest.withLock { $0 = max($0, bytes) }
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            // 8 × 160 KB written through a 256 KB cache: it never held more than 10% over.
            let final = try await TestSQL.bytes(cache)
            #expect(final <= limit + limit / 10)
            #expect(largest.withLock { $0 } <= limit + limit / 10)
            #expect(final >= limit / 2, "the trim removed far more than needed: \(final) bytes left")
            #expect(cache.statistics.expired > 0)
            // The newest write survives (writers run at their own pace: one may finish long
            // before the others), the oldest went first.
            #expect(try await cache.value(forKey: lastWritten.withLock { $0 }) != nil)
            #expect(try await cache.value(forKey: "w0-0") == nil)
        }
    }

    @Test func holdsTheEntryLimitAndTheMaximumAge() async throws {
        try await TestPostgres.withCache({ $0.countLimit = 100; $0.sizeLimit = nil }) { cache in
            for index in 0..<150 { try await cache.set(Data([1]), forKey: "k\(index)") }
            await cache.removeExpired()
            let count = try await TestSQL.count(cache)
            #expect(count <= 100 && count >= 80)
            #expect(try await cache.value(forKey: "k149") != nil)
            #expect(try await cache.value(forKey: "k0") == nil)
        }
        try await TestPostgres.withCache({ $0.ageLimit = .milliseconds(300) }) { cache in
            try await cache.set(Data([1]), forKey: "old")
            try await Task.sleep(for: .milliseconds(400))
            try await cache.set(Data([2]), forKey: "new")
            #expect(try await cache.value(forKey: "old") == nil)
            #expect(try await cache.value(forKey: "new") == Data([2]))
            #expect(await cache.removeExpired() == 1)
            #expect(try await TestSQL.count(cache) == 1)
        }
    }

    /// Trimming removes the entries written longest ago: a key stored first but rewritten
    /// since (a revalidated hot response) outlives keys stored after it and never rewritten.
    @Test func trimmingRemovesTheEntriesWrittenLongestAgo() async throws {
        // A maximum age of 16 s moves a rewritten entry forward once its place is 2 s old
        // (long enough for a machine busy building to write the keys in time).
        try await TestPostgres.withCache({ $0.countLimit = 10; $0.sizeLimit = nil; $0.ageLimit = .seconds(16) }) { cache in
            try await cache.set(Data([0]), forKey: "hot")
            for index in 0..<10 { try await cache.set(Data([1]), forKey: "cold\(index)") }
            try await Task.sleep(for: .milliseconds(2200))
            try await cache.set(Data([2]), forKey: "hot")
            #expect(await cache.removeExpired() == 3)
            // 11 entries over a limit of 10: trimmed to 8 (80%), the three cold keys stored first went.
            #expect(try await TestSQL.count(cache) == 8)
            #expect(try await cache.value(forKey: "hot") == Data([2]))
            #expect(try await cache.value(forKey: "cold0") == nil)
            #expect(try await cache.value(forKey: "cold9") != nil)
        }
    }

    @Test func runRemovesExpiredEntriesUntilGracefulShutdown() async throws {
        try await TestPostgres.withCache({ $0.expiryInterval = .milliseconds(50) }) { cache in
            for index in 0..<20 { try await cache.set(Data([1]), forKey: "e\(index)", expiry: .after(0)) }
            try await cache.set(Data([1]), forKey: "kept")
            let group = ServiceGroup(services: [cache], logger: TestPostgres.quiet)
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                while try await TestSQL.count(cache) > 1 { try await Task.sleep(for: .milliseconds(20)) }
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
            }
            #expect(try await TestSQL.count(cache) == 1)
            #expect(cache.statistics.expired == 20)
        }
    }
}
