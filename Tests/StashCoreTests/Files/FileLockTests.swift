import Foundation
import StashCore
import StashTestSupport
import Testing

struct FileLockTests {
    @Test func excludesAnotherProcessUntilItDies() throws {
        let folder = TemporaryFolder("lock")
        let url = folder.file("store.lock")
        let child = try ChildProcess.testHost("core.hold-lock", url.path)
        #expect(child.readLine() == "locked")

        let lock = try FileLock(url: url)
        #expect(try lock.tryLock(.exclusive) == false)
        #expect(try lock.tryLock(.shared) == false)

        child.kill()
        child.wait()
        // The kernel released the dead child's lock.
        #expect(try lock.tryLock(.exclusive) == true)
        lock.unlock()
    }

    @Test func sharedLocksCoexistExclusiveDoesNot() throws {
        let folder = TemporaryFolder("lock")
        let url = folder.file("store.lock")
        let first = try FileLock(url: url)
        let second = try FileLock(url: url)
        #expect(try first.tryLock(.shared))
        #expect(try second.tryLock(.shared))
        second.unlock()
        #expect(try second.tryLock(.exclusive) == false)
        first.unlock()
        #expect(try second.withLock(.exclusive) { 42 } == 42)
    }
}

struct FileLockScopeTests {
    @Test func processesOnlyMayBeReleasedFromAnotherThread() async throws {
        let folder = TemporaryFolder("lock")
        let url = folder.file("store.lock")
        let lock = try FileLock(url: url, scope: .processesOnly)
        #expect(lock.scope == .processesOnly)
        try lock.lock(.exclusive)
        // Another thread releases it: allowed without an in-process mutex.
        await Task.detached { lock.unlock() }.value

        // Another process can take it now.
        let child = try ChildProcess.testHost("core.hold-lock", url.path)
        #expect(child.readLine() == "locked")
        #expect(try lock.tryLock(.exclusive) == false)
        child.kill()
        child.wait()
        #expect(try lock.tryLock(.exclusive) == true)
        lock.unlock()
    }
}
