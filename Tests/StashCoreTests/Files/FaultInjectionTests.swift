import Foundation
import StashCore
import StashTestSupport
import Testing

/// The fault-injection seam under `FileStore`: a plan counts and fails only the calls in its
/// own folder, interrupted calls are retried, and every sync error of an atomic write is
/// reported.
struct FaultInjectionTests {
    /// A power-safe atomic write makes six calls: create, write, fsync, rename, and the
    /// folder's open and fsync. Calls in another folder are not counted.
    @Test func aPlanCountsTheCallsInItsFolderOnly() throws {
        let folder = TemporaryFolder("faults")
        let other = TemporaryFolder("faults-other")
        let plan = FaultInjection.arm(folder: folder.url.path)
        defer { plan.disarm() }
        try FileStore.write(Data("one".utf8), to: folder.file("a"))
        try FileStore.write(Data("two".utf8), to: other.file("b"))
        plan.disarm()
        #expect(plan.log.map(\.call) == [.open, .write, .fsync, .rename, .open, .syncFolder])
        #expect(plan.calls == 6)
        #expect(plan.injected == 0)
    }

    /// The chosen call fails with the chosen errno, typed, naming the destination; the
    /// previous content stays and no temporary file is left behind.
    @Test(arguments: [(Int32(ENOSPC), StashError.Code.diskFull), (EDQUOT, .diskFull), (EIO, .io)])
    func theChosenCallFailsWithTheChosenErrno(code: Int32, expected: StashError.Code) throws {
        let folder = TemporaryFolder("faults")
        let url = folder.file("settings.json")
        try FileStore.write(Data("previous".utf8), to: url)
        let plan = FaultInjection.arm(folder: folder.url.path, failing: 1, of: .write, with: code)
        defer { plan.disarm() }
        #expect { try FileStore.write(Data("next".utf8), to: url) } throws: { error in
            let error = try #require(error as? StashError)
            return error.code == expected && error.posixCode == code && error.path == url.path
        }
        #expect(plan.injected == 1)
        #expect(try FileStore.read(url) == Data("previous".utf8))
        #expect(try FileStore.list(folder.url) == ["settings.json"])
    }

    /// A write interrupted by a signal (EINTR) is tried again: the atomic write succeeds.
    @Test func anInterruptedWriteIsRetried() throws {
        let folder = TemporaryFolder("faults")
        let url = folder.file("a")
        let plan = FaultInjection.arm(folder: folder.url.path, failing: 1, of: .write, with: EINTR)
        defer { plan.disarm() }
        try FileStore.write(Data("whole".utf8), to: url)
        #expect(plan.injected == 1)
        #expect(plan.calls == 2)
        #expect(try FileStore.read(url) == Data("whole".utf8))
    }

    /// The folder's fsync after the rename reports its failure (it used to be ignored, so a
    /// write that may not survive a power cut returned as if it would); the new content is
    /// in place, and the error says so.
    @Test(arguments: [FaultInjection.Call.syncFolder, .open])
    func aFailedFolderSyncIsReported(call: FaultInjection.Call) throws {
        let folder = TemporaryFolder("faults")
        let url = folder.file("a")
        // The folder sync's open is the second open of the write.
        let plan = FaultInjection.arm(folder: folder.url.path, failing: call == .open ? 2 : 1, of: call, with: EIO)
        defer { plan.disarm() }
        #expect { try FileStore.write(Data("new".utf8), to: url) } throws: { error in
            let error = try #require(error as? StashError)
            return error.code == .io && error.path == url.path && error.reason.contains("in place")
        }
        #expect(plan.injected == 1)
        #expect(try FileStore.read(url) == Data("new".utf8))
    }

    /// A file system that cannot fsync a folder (EINVAL) is not an error: it offers nothing
    /// stronger.
    @Test func aFolderSyncTheFileSystemCannotDoIsTolerated() throws {
        let folder = TemporaryFolder("faults")
        let plan = FaultInjection.arm(folder: folder.url.path, failing: 1, of: .syncFolder, with: EINVAL)
        defer { plan.disarm() }
        try FileStore.write(Data("new".utf8), to: folder.file("a"))
        #expect(plan.injected == 1)
    }

    /// A persistent plan fails every call from the chosen one on (a disk that stays full),
    /// until it is disarmed.
    @Test func aPersistentFaultLastsUntilDisarmed() throws {
        let folder = TemporaryFolder("faults")
        let plan = FaultInjection.arm(folder: folder.url.path, failing: 1, of: .open, with: ENOSPC, persistent: true)
        for name in ["a", "b"] {
            #expect(throws: StashError.self) { try FileStore.write(Data(), to: folder.file(name)) }
        }
        plan.disarm()
        try FileStore.write(Data("c".utf8), to: folder.file("c"))
        #expect(plan.injected == 2)
    }
}
