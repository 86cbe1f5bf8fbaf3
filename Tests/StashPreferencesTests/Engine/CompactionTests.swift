import Foundation
import StashCore
import StashTestSupport
import Testing
@testable import StashPreferences

@Suite struct CompactionTests {
    let folder = TemporaryFolder("prefs-compaction")
    var file: URL { folder.file("compact.stashprefs") }

    @Test func compactionKeepsExactlyTheLiveKeysAndShrinksTheFile() throws {
        let prefs = try Preferences(url: file)
        let payload = String(repeating: "p", count: 200)
        for round in 0..<4 {
            for i in 0..<1000 { try prefs.set("\(payload) \(round) \(i)", forKey: "key-\(i)") }
        }
        for i in stride(from: 0, to: 1000, by: 2) { try prefs.removeValue(forKey: "key-\(i)") }
        let before = try FileStore.size(of: file)
        try prefs.compact()
        let after = try FileStore.size(of: file)
        #expect(after < before)
        let expected = Set(stride(from: 1, to: 1000, by: 2).map { "key-\($0)" })
        #expect(Set(prefs.keys) == expected)
        prefs.close()

        let reopened = try Preferences(url: file)
        #expect(reopened.recoveryReport == nil)
        #expect(Set(reopened.keys) == expected)
        for i in stride(from: 1, to: 1000, by: 2) {
            #expect(reopened.string(forKey: "key-\(i)") == "\(payload) 3 \(i)")
        }
        let storage = reopened.storage
        let groupEnds = LogLayout.items(try FileStore.read(file)).filter { $0.kind == .groupEnd }
        #expect(!groupEnds.isEmpty)
        #expect(storage.usedBytes == LogFile.headerSize + storage.liveBytes + groupEnds.reduce(0) { $0 + $1.range.count })
    }

    @Test func overwritingForeverDoesNotGrowTheFileForever() throws {
        let prefs = try Preferences(url: file)
        var sizes: [Int64] = []
        for round in 0..<20 {
            // Rounds 100 to 119: every round's values have the same lengths.
            for i in 0..<500 { try prefs.set("round \(round + 100) value \(i) padding padding", forKey: "key-\(i)") }
            sizes.append(try FileStore.size(of: file))
        }
        let storage = prefs.storage
        #expect(storage.generation > 0)
        #expect(storage.fileSize <= 8 * storage.liveBytes + 64 * 1024)
        // The live data is the same size each round: a file still growing would grow forever.
        #expect(sizes[5...].allSatisfy { $0 <= sizes[5] }, "\(sizes)")
        #expect(prefs.keys.count == 500)
        #expect(try FileStore.list(folder.url).filter { $0.contains(".compact-") }.isEmpty)
    }

    /// A small suite whose keys are rewritten over and over compacts once per three times
    /// its live size of writes, not once per its size (each compaction is a fresh file and
    /// two fsyncs), and its file stays within four times the live data; an explicit
    /// `compact()` still leaves room for only as much again.
    @Test func rewritesOfASmallSuiteCompactOncePerThreeTimesItsSize() throws {
        let prefs = try Preferences(url: file)
        let rounds = 60
        for round in 0..<rounds {
            for i in 0..<500 { try prefs.set("round \(round) value \(i) padding", forKey: "key-\(i)") }
        }
        let storage = prefs.storage
        // Each round rewrites the live size once: every round or two without the room.
        #expect(storage.generation >= 10 && storage.generation <= rounds / 3 + 2, "\(storage.generation) compactions")
        #expect(storage.fileSize <= 4 * storage.liveBytes + 2 * 4096, "\(storage.fileSize) bytes for \(storage.liveBytes) live")
        try prefs.compact()
        #expect(prefs.storage.fileSize <= 2 * storage.liveBytes + 2 * 4096 + LogFile.minimumSize)
    }

    /// A compaction drops expired keys from anywhere in the index (each removal moves the
    /// last key into its hole) and moves every other entry to its new record: every value
    /// reads back, in this process and after a reopen.
    @Test func compactionAmongExpiredKeysKeepsEveryLiveValue() throws {
        let clock = ManualClock()
        let prefs = try Preferences(url: file, clock: clock)
        for i in 0..<300 {
            if i % 3 == 0 {
                try prefs.set("short \(i)", forKey: "key-\(i)", expiry: .after(10))
            } else {
                try prefs.set("long \(i)", forKey: "key-\(i)")
            }
        }
        clock.advance(by: 11)
        try prefs.compact()
        let live = (0..<300).filter { $0 % 3 != 0 }
        #expect(prefs.storage.keyCount == live.count)
        #expect(live.allSatisfy { prefs.string(forKey: "key-\($0)") == "long \($0)" })
        try prefs.set("after", forKey: "key-1")
        prefs.close()
        let reopened = try Preferences(url: file, clock: clock)
        #expect(reopened.recoveryReport == nil && reopened.storage.keyCount == live.count)
        #expect(reopened.string(forKey: "key-1") == "after")
        #expect(live.dropFirst().allSatisfy { reopened.string(forKey: "key-\($0)") == "long \($0)" })
    }

    /// Past 1 MB of live data, a compaction leaves room for as much again, not more.
    @Test func aLargeSuiteCompactsIntoTwiceItsLiveSize() {
        let live = 3 << 20
        #expect(PreferencesEngine.compactedSize(live: live, leavingRoom: true) == 2 * live + 4096)
        #expect(PreferencesEngine.compactedSize(live: 100_000, leavingRoom: true) == PreferencesEngine.pageRounded(LogFile.headerSize + 400_000))
        #expect(PreferencesEngine.compactedSize(live: 500_000, leavingRoom: true) == PreferencesEngine.pageRounded(LogFile.headerSize + 500_000 + 1 << 20))
        #expect(PreferencesEngine.compactedSize(live: 100_000, leavingRoom: false) == PreferencesEngine.pageRounded(LogFile.headerSize + 200_000))
    }

    @Test func anAbandonedCompactionFileIsRemovedOnOpen() throws {
        let prefs = try Preferences(url: file)
        try prefs.set(1, forKey: "a")
        prefs.close()
        let leftover = folder.file("compact.stashprefs.compact-12345")
        try FileStore.write(Data(repeating: 1, count: 100), to: leftover)
        let reopened = try Preferences(url: file)
        #expect(!FileStore.exists(leftover))
        #expect(reopened.integer(forKey: "a") == 1)
    }
}
