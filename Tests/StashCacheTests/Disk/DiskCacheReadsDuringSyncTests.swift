import Foundation
@testable import StashCache
import StashCore
import StashTestSupport
import Testing

/// A read never waits for the disk: compaction copies records and syncs them with `fsync`
/// (`F_FULLFSYNC` on Darwin), which a busy phone's flash can take a second or more to
/// finish, and a main-thread read that waited for it would drop frames. Here the sync is
/// held until the reads are done, or for 30 s: a read that waits for it cannot finish in
/// time.
struct DiskCacheReadsDuringSyncTests {
    let fixture = DiskCacheFixture()

    /// Holds the first `fsync` of a value-log segment until `release` is signalled (or
    /// 30 s), signalling `syncing` when it starts.
    private final class HeldSync: @unchecked Sendable {  // `held` under its lock; semaphores are thread-safe
        let syncing = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        private let held = LockedValue(false)

        func observe(_ call: FaultInjection.Observed) {
            guard call.call == .fsync, call.path.hasSuffix(".log") else { return }
            guard !held.withLock({ (was: inout Bool) -> Bool in defer { was = true }; return was }) else { return }
            syncing.signal()
            _ = release.wait(timeout: .now() + 30)
        }
    }

    private static func value(_ index: Int, _ round: Int) -> Data {
        .filled(UInt8(truncatingIfNeeded: index &+ round &* 7), 1_000 + index % 50)
    }

    @Test func readsFinishWhileCompactionSyncsItsCopies() async throws {
        let cache = try fixture.open { $0.flushDelay = 3600 }
        // Six rounds of the same keys: five sixths of the log dead, so compaction copies.
        for round in 0..<6 {
            for index in 0..<1_000 { try cache.set(Self.value(index, round), forKey: "k\(index)") }
            try await cache.flush()
        }
        let sync = HeldSync()
        let plan = FaultInjection.observe(folder: fixture.directory.path) { sync.observe($0) }
        defer { plan.disarm() }
        let compaction = ThreadTask { Result { try cache.queue.sync { try cache.compactIfDue() } } }
        let syncing = await offThePool { sync.syncing.wait(timeout: .now() + 30) == .success }
        #expect(syncing, "compaction never synced its copies")
        // The sync is held now. Every value reads, on a thread of its own.
        let wrong = LockedValue(0)
        let reads = ThreadTask {
            for index in 0..<1_000 where cache.data(forKey: "k\(index)") != Self.value(index, 5) {
                wrong.withLock { $0 += 1 }
            }
        }
        let finished = await reads.finishes(within: 20)
        sync.release.signal()
        await reads.value
        #expect(finished, "the reads waited for compaction's sync")
        #expect(wrong.withLock { $0 } == 0)
        try await compaction.value.get()
        for index in 0..<1_000 { #expect(cache.data(forKey: "k\(index)") == Self.value(index, 5)) }
        try cache.close()
    }
}
