import Foundation
import StashCore
import StashTestSupport
import Testing
@testable import StashPreferences

/// `suspend()`: a suite in a shared container holds no file lock once the app goes to the
/// background, even right after a write.
@Suite(.enabled(if: HeldFileLocks.isAvailable, "reads /proc/locks"))
struct PreferencesSuspensionTests {
    let folder = TemporaryFolder("prefs-suspension")
    var file: URL { folder.file("shared.stashprefs") }
    var lockFile: URL { folder.file("shared.stashprefs.lock") }

    @Test func aSuspendedSuiteHoldsNoLockAfterAWrite() throws {
        let prefs = try Preferences(url: file)
        // Running, a write keeps the lock for the writes that follow: the engine's linger
        // (released by a timer a millisecond later) is what suspend() turns off.
        try prefs.set(1, forKey: "a")
        prefs.suspend()
        #expect(try HeldFileLocks.on(lockFile) == [], "suspending releases the lingering lock")
        for i in 0..<100 {
            try prefs.set(i, forKey: "k\(i)")
            #expect(try HeldFileLocks.on(lockFile) == [], "after write \(i)")
        }
        #expect(prefs.integer(forKey: "k99") == 99)
        prefs.resume()
        try prefs.set(2, forKey: "b")
        #expect(try Preferences(url: file).integer(forKey: "b") == 2)
    }

    /// The linger itself, so that the test above can fail: without suspend(), the lock is
    /// still held the moment a write returns.
    @Test func aRunningSuiteKeepsTheLockBrieflyAfterAWrite() throws {
        let prefs = try Preferences(url: file)
        var heldAfterSomeWrite = false
        for i in 0..<20 where !heldAfterSomeWrite {
            try prefs.set(i, forKey: "k")
            heldAfterSomeWrite = try !HeldFileLocks.on(lockFile).isEmpty
        }
        #expect(heldAfterSomeWrite)
    }

    /// The crash-safety promise: a write made while suspended survives a kill of the process.
    @Test func aWriteWhileSuspendedSurvivesACrash() throws {
        let child = try ChildProcess.testHost("preferences.observed-set", file.path, "level", "5", "suspend")
        #expect(child.readLine() == "set", "child failed: \(child.standardError())")
        child.kill()
        child.wait()
        #expect(try Preferences(url: file).integer(forKey: "level") == 5)
    }

    /// The thread-safety promise: suspending while other threads write leaves no lock held
    /// once they are done, and loses no write.
    @Test func suspendingWhileOthersWriteLeavesNoLock() async throws {
        let prefs = try Preferences(url: file)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    for index in 0..<100 { try prefs.set(index, forKey: "w\(writer)") }
                }
            }
            group.addTask { prefs.suspend() }
            try await group.waitForAll()
        }
        #expect(try HeldFileLocks.on(lockFile) == [])
        for writer in 0..<4 { #expect(prefs.integer(forKey: "w\(writer)") == 99) }
    }
}
