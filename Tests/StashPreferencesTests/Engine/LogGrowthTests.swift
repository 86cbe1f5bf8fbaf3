import Foundation
import StashCore
import StashTestSupport
import Testing
@testable import StashPreferences

/// Growing the log by writing zeroes: what Apple platforms (no `posix_fallocate`) always do,
/// and Linux when the file system refuses to allocate ahead.
struct LogGrowthTests {
    @Test func zeroesGrowTheFileWithRealBlocks() throws {
        let folder = TemporaryFolder("prefs-growth")
        let log = try LogFile(url: folder.file("log.stashprefs"))
        #expect(FileStore.writeZeroes(log.fd, from: 0, to: 200_000, path: log.url.path) == 0)
        #expect(try log.fileSize() == 200_000)
        try log.remap()
        #expect(log.mappedSize == 200_000)
    }

    @Test func aFileSystemThatCannotAllocateGetsZeroes() throws {
        let folder = TemporaryFolder("prefs-growth-fallback")
        let url = folder.file("settings.stashprefs")
        let prefs = try Preferences(url: url)
        let plan = FaultInjection.arm(folder: folder.url.path, failing: 1, of: .allocate, with: EOPNOTSUPP, persistent: true)
        defer { plan.disarm() }
        try prefs.set(Data(repeating: 1, count: 100_000), forKey: "big")
        #expect(prefs.storage.fileSize >= 100_000)
        #expect(try Preferences(url: url).data(forKey: "big")?.count == 100_000)
    }

    @Test func aFullDiskWhileWritingZeroesLeavesTheFileAsItWas() throws {
        let folder = TemporaryFolder("prefs-growth-full")
        let url = folder.file("settings.stashprefs")
        let prefs = try Preferences(url: url)
        try prefs.set(1, forKey: "a")
        let size = prefs.storage.fileSize
        let refuse = FaultInjection.arm(folder: folder.url.path, failing: 1, of: .allocate, with: EOPNOTSUPP, persistent: true)
        let full = FaultInjection.arm(folder: folder.url.path, failing: 2, of: .pwrite, with: ENOSPC)
        defer { refuse.disarm(); full.disarm() }
        #expect { try prefs.set(Data(repeating: 1, count: 200_000), forKey: "big") } throws: { ($0 as? StashError)?.code == .diskFull }
        #expect(full.injected == 1)
        #expect(prefs.storage.fileSize == size)
        #expect(prefs.integer(forKey: "a") == 1)
    }
}
