import Foundation
@testable import StashCache
import StashCore
import StashTestSupport
import Testing

/// `suspend()` / `resume()`: an app in the background holds no lock on a cache in a shared
/// container, another process may write the folder meanwhile, and nothing staged is lost.
struct DiskCacheSuspensionTests {
    let fixture = DiskCacheFixture()

    /// The locks this process holds on the files of the cache's folder, from `/proc/locks`:
    /// `flock` locks on `writer.lock`, and the POSIX locks on the `-shm` file other than
    /// SQLite's "dead man switch" byte (128), which every open WAL connection keeps and
    /// which blocks no one (read marks are bytes 123-127, the writer's 120).
    private func locksHeld() throws -> [String] {
        let writer = try HeldFileLocks.on(fixture.directory.appendingPathComponent("writer.lock")).map { "writer.lock \($0)" }
        let shm = try HeldFileLocks.beyondOpenSQLiteConnections(on: fixture.directory.appendingPathComponent("manifest.sqlite-shm"))
            .map { "shm \($0)" }
        return writer + shm
    }

    @Test(.enabled(if: HeldFileLocks.isAvailable, "reads /proc/locks"))
    func aSuspendedCacheHoldsNoLock() async throws {
        let cache = try fixture.open()
        try cache.set(.filled(1, 100), forKey: "a")
        try await cache.flush()
        #expect(cache.data(forKey: "a") == .filled(1, 100))
        let before = try locksHeld()
        #expect(before.contains { $0.hasPrefix("writer.lock FLOCK") }, "an open writer holds its lock: \(before)")
        #expect(before.contains { $0.hasPrefix("shm POSIX READ") }, "and a read mark between flushes: \(before)")
        try await cache.suspend()
        #expect(cache.isSuspended)
        #expect(try locksHeld() == [])
        // Reads go on, and leave no lock behind either.
        #expect(cache.data(forKey: "a") == .filled(1, 100))
        #expect(try locksHeld() == [])
        try cache.resume()
        #expect(!cache.isSuspended)
        #expect(try locksHeld().contains { $0.hasPrefix("writer.lock FLOCK") })
        try cache.set(.filled(2, 100), forKey: "b")
        try cache.close()
    }

    @Test func writesThrowAndRemovalsWaitForTheResume() async throws {
        let cache = try fixture.open()
        try cache.set(.filled(1, 10), forKey: "kept")
        try cache.set(.filled(2, 10), forKey: "removed")
        try await cache.suspend()
        #expect(throws: StashError.self) { try cache.set(.filled(3, 10), forKey: "refused") }
        do {
            try cache.set(.filled(3, 10), forKey: "refused")
        } catch {
            #expect((error as? StashError)?.code == .suspended)
        }
        await #expect(throws: StashError.self) { try await cache.flush() }
        cache.removeValue(forKey: "removed")
        #expect(cache.data(forKey: "removed") == nil, "a staged removal is seen at once")
        try await cache.suspend() // idempotent
        try cache.resume()
        try cache.resume() // idempotent
        try await cache.flush()
        try cache.close()
        let reopened = try fixture.open()
        #expect(reopened.data(forKey: "kept") == .filled(1, 10))
        #expect(reopened.data(forKey: "removed") == nil)
        #expect(reopened.data(forKey: "refused") == nil)
        #expect(try reopened.statistics().count == 1)
    }

    /// While the app is suspended, an extension becomes the folder's writer: the app's
    /// resume is refused while the extension writes, then succeeds and sees its entry, with
    /// the count including it.
    @Test func anotherProcessMayWriteWhileTheCacheIsSuspended() async throws {
        let cache = try fixture.open()
        try cache.set(.filled(1, 10), forKey: "mine")
        try await cache.suspend()
        let child = try ChildProcess.testHost("cache.hold-writer", fixture.directory.path)
        #expect(child.readLine() == "ready", "the child became the writer")
        do {
            try cache.resume()
            Issue.record("resume succeeded while another process is the writer")
        } catch {
            #expect((error as? StashError)?.code == .locked)
        }
        #expect(cache.isSuspended)
        child.kill()
        child.wait()
        try cache.resume()
        #expect(cache.data(forKey: "from-child") == Data("from-child".utf8))
        #expect(cache.data(forKey: "mine") == .filled(1, 10))
        #expect(try cache.statistics().count == 2)
        try cache.set(.filled(2, 10), forKey: "after")
        try cache.close()
    }

    /// A removal staged while suspended was decided on the entry of that time: when another
    /// writer replaced the entry meanwhile, its newer value stays; when it removed it, the
    /// count does not go down twice; an entry left alone is removed.
    @Test func aRemovalMadeWhileSuspendedLeavesANewerValueAlone() async throws {
        let cache = try fixture.open()
        for (index, key) in ["replaced", "removed", "unchanged"].enumerated() { try cache.set(.filled(UInt8(index), 10), forKey: key) }
        try await cache.suspend()
        for key in ["replaced", "removed", "unchanged"] { cache.removeValue(forKey: key) }
        fixture.clock.advance(by: 5)
        let other = try fixture.open()
        try other.set(.filled(9, 10), forKey: "replaced")
        other.removeValue(forKey: "removed")
        try other.close()
        try cache.resume()
        try await cache.flush()
        #expect(cache.data(forKey: "replaced") == .filled(9, 10))
        #expect(cache.data(forKey: "removed") == nil)
        #expect(cache.data(forKey: "unchanged") == nil)
        #expect(cache.count == 1)
        #expect(try cache.statistics().count == 1)
        try cache.close()
    }

    /// A folder deleted while the cache was suspended (an app's "clear cache" from an
    /// extension, say), then made again by another cache: resuming would write a manifest
    /// no one else sees, beside a writer that does not know of it, so it throws instead.
    @Test func aFolderDeletedWhileSuspendedIsNotResumed() async throws {
        let cache = try fixture.open()
        try cache.set(.filled(1, 10), forKey: "a")
        try await cache.suspend()
        try FileManager.default.removeItem(at: fixture.directory)
        let deleted = #expect(throws: StashError.self) { try cache.resume() }
        #expect(deleted?.code == .notFound)
        let other = try fixture.open()
        try other.set(.filled(2, 10), forKey: "b")
        let replaced = #expect(throws: StashError.self) { try cache.resume() }
        #expect(replaced?.code == .notFound)
        #expect(cache.isSuspended)
        try other.close()
        try cache.close()
    }

    /// Closing a suspended cache writes the removals it staged meanwhile (taking the lock
    /// back for that), and closing one with nothing staged needs no lock at all.
    @Test func closingASuspendedCache() async throws {
        let cache = try fixture.open()
        try cache.set(.filled(1, 10), forKey: "a")
        try cache.set(.filled(2, 10), forKey: "b")
        try await cache.suspend()
        cache.removeValue(forKey: "a")
        try cache.close()
        let second = try fixture.open()
        #expect(second.data(forKey: "a") == nil)
        #expect(second.data(forKey: "b") == .filled(2, 10))
        try await second.suspend()
        let other = try fixture.open()
        try second.close()
        try other.close()
    }

    /// The crash-safety promise: what was written before `suspend()` returned survives a kill
    /// while suspended (the child's flush delay is an hour: only suspend's flush writes), and
    /// the removal staged meanwhile is lost.
    @Test func aCrashWhileSuspendedKeepsWhatWasWrittenBefore() throws {
        let child = try ChildProcess.testHost("cache.suspend-and-wait", fixture.directory.path)
        #expect(child.readLine() == "suspended", "child failed: \(child.standardError())")
        child.kill()
        child.wait()
        let cache = try fixture.open()
        for key in ["a", "b", "c"] { #expect(cache.data(forKey: key) == Data(key.utf8), "\(key)") }
        #expect(!cache.isSuspended, "a fresh process's cache starts resumed")
        try cache.set(Data("d".utf8), forKey: "d")
        try cache.close()
    }

    /// The thread-safety promise: writes racing with `suspend()` are either in its flush or
    /// refused with `suspended`; none is dropped.
    @Test func writesRacingASuspensionAreKeptOrRefused() async throws {
        let cache = try fixture.open { $0.flushDelay = 3600 }
        let kept = LockedValue<[String]>([])
        let refused = LockedValue<[StashError.Code]>([])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    for index in 0..<200 {
                        let key = "w\(writer)-\(index)"
                        do {
                            try cache.set(Data(key.utf8), forKey: key)
                            kept.withLock { $0.append(key) }
                        } catch let error as StashError {
                            refused.withLock { $0.append(error.code) }
                        }
                        await Task.yield()
                    }
                }
            }
            group.addTask { try await cache.suspend() }
            try await group.waitForAll()
        }
        #expect(refused.withLock { $0 }.allSatisfy { $0 == .suspended })
        try cache.close()
        let reopened = try fixture.open()
        for key in kept.withLock({ $0 }) { #expect(reopened.data(forKey: key) == Data(key.utf8), "\(key)") }
        try reopened.close()
    }
}
