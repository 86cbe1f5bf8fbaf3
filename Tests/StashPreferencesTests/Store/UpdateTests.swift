import Foundation
import StashCore
import StashTestSupport
import Testing
@testable import StashPreferences

/// Atomic read-modify-write: `update`, `increment`, `withLock`.
@Suite struct UpdateTests {
    let folder = TemporaryFolder("prefs-update")
    var file: URL { folder.file("update.stashprefs") }

    @Test func twoProcessesCountingOnOneKeyLoseNothing() throws {
        let count = 10_000
        let first = try ChildProcess.testHost("preferences.count", file.path, "counter", "\(count)")
        let second = try ChildProcess.testHost("preferences.count", file.path, "counter", "\(count)")
        #expect(first.readAllLines() == ["ready", "done"])
        #expect(second.readAllLines() == ["ready", "done"])
        #expect(first.wait() == 0)
        #expect(second.wait() == 0)
        let prefs = try Preferences(url: file)
        #expect(prefs.integer(forKey: "counter") == 2 * count)
        #expect(prefs.recoveryReport == nil)
    }

    @Test func threadsAndInstancesCountingOnOneKeyLoseNothing() async throws {
        let one = try Preferences(url: file)
        let two = try Preferences(url: file)
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                let prefs = task % 2 == 0 ? one : two
                group.addTask {
                    for _ in 0..<500 { _ = try? prefs.increment(forKey: "n") }
                }
            }
        }
        #expect(one.integer(forKey: "n") == 4000)
        #expect(two.integer(forKey: "n") == 4000)
    }

    @Test func incrementStartsAtZeroAndReturnsTheNewValue() throws {
        let prefs = try Preferences(url: file)
        #expect(try prefs.increment(forKey: "launches") == 1)
        #expect(try prefs.increment(forKey: "launches", by: 10) == 11)
        #expect(try prefs.increment(forKey: "launches", by: -12) == -1)
        prefs.close()
        #expect(try Preferences(url: file).integer(forKey: "launches") == -1)
    }

    @Test func incrementRefusesOtherTypesAndOverflowWritingNothing() throws {
        let prefs = try Preferences(url: file)
        try prefs.set("text", forKey: "s")
        #expect(throws: StashError.self) { try prefs.increment(forKey: "s") }
        #expect(prefs.string(forKey: "s") == "text")
        try prefs.set(Int64.max, forKey: "max")
        let error = try #require(throws: StashError.self) { try prefs.increment(forKey: "max") }
        #expect(error.code == .unsupportedValue)
        #expect(prefs.value(forKey: "max", as: Int64.self) == .max)
    }

    @Test func aThrowingUpdateWritesNothing() throws {
        struct Refused: Error {}
        let prefs = try Preferences(url: file)
        try prefs.set(1, forKey: "a")
        let used = prefs.storage.usedBytes
        #expect(throws: Refused.self) {
            try prefs.update(forKey: "a") { _ in throw Refused() }
        }
        #expect(throws: Refused.self) {
            try prefs.withLock { transaction in
                try transaction.set(2, forKey: "a")
                try transaction.set(3, forKey: "b")
                throw Refused()
            }
        }
        #expect(prefs.integer(forKey: "a") == 1)
        #expect(prefs.object(forKey: "b") == nil)
        #expect(prefs.storage.usedBytes == used)
    }

    @Test func withLockSeesItsOwnWritesAndAppliesThemTogether() throws {
        let prefs = try Preferences(url: file)
        try prefs.set(10, forKey: "balance")
        let other = try Preferences(url: file)
        let spent = try prefs.withLock { transaction -> Int in
            let balance = transaction.integer(forKey: "balance")
            try transaction.set(balance - 4, forKey: "balance")
            #expect(transaction.integer(forKey: "balance") == 6)
            try transaction.removeValue(forKey: "pending")
            try transaction.set("yes", forKey: "paid")
            return 4
        }
        #expect(spent == 4)
        #expect(other.integer(forKey: "balance") == 6)
        #expect(other.string(forKey: "paid") == "yes")
    }

    @Test func typedUpdateUsesTheDefaultAndKeepsTheExpiry() throws {
        let clock = ManualClock()
        let prefs = try Preferences(url: file, clock: clock)
        let recent = Preferences.Key("recent", default: [String]())
        try prefs.update(recent) { $0.append("a.txt") }
        try prefs.update(recent) { $0.append("b.txt") }
        #expect(prefs[recent] == ["a.txt", "b.txt"])

        try prefs.set(1, forKey: "session", expiry: .after(60))
        try prefs.increment(forKey: "session")
        #expect(prefs.integer(forKey: "session") == 2)
        clock.advance(by: 61)
        #expect(prefs.object(forKey: "session") == nil)
        // An expired value counts as none.
        #expect(try prefs.increment(forKey: "session") == 1)
    }

    @Test func aClosedStoreRefusesUpdates() throws {
        let prefs = try Preferences(url: file)
        prefs.close()
        let error = try #require(throws: StashError.self) { try prefs.increment(forKey: "n") }
        #expect(error.code == .closed)
    }

    @Test func inMemoryStoresUpdateToo() throws {
        let prefs = Preferences(inMemory: "memory")
        for _ in 0..<10 { try prefs.increment(forKey: "n") }
        #expect(prefs.integer(forKey: "n") == 10)
    }
}
