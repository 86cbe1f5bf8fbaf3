import Foundation
import StashCore
import StashTestSupport
import Testing
@testable import StashPreferences

@Suite struct MultiProcessTests {
    let folder = TemporaryFolder("prefs-processes")
    var file: URL { folder.file("shared.stashprefs") }

    @Test func twoProcessesWritingDisjointKeysBothSeeAllKeys() throws {
        let count = 1500
        let first = try ChildProcess.testHost("preferences.write-range", file.path, "a", "\(count)", "\(2 * count)")
        let second = try ChildProcess.testHost("preferences.write-range", file.path, "b", "\(count)", "\(2 * count)")
        #expect(first.readAllLines() == ["ready", "written", "saw \(2 * count)"])
        #expect(second.readAllLines() == ["ready", "written", "saw \(2 * count)"])
        #expect(first.wait() == 0)
        #expect(second.wait() == 0)

        let prefs = try Preferences(url: file)
        #expect(prefs.recoveryReport == nil)
        #expect(prefs.keys.count == 2 * count)
        for i in 0..<count {
            #expect(prefs.string(forKey: "a-\(i)") == "a \(i)")
            #expect(prefs.string(forKey: "b-\(i)") == "b \(i)")
        }
    }

    @Test func anotherInstanceSeesWritesOnItsNextAccess() throws {
        let one = try Preferences(url: file)
        let two = try Preferences(url: file)
        try one.set("from one", forKey: "x")
        #expect(two.string(forKey: "x") == "from one")
        try two.set(2, forKey: "y")
        try two.removeValue(forKey: "x")
        #expect(one.keys == ["y"])
        try one.removeAll()
        #expect(two.keys.isEmpty)
    }

    @Test func anotherInstanceFollowsACompaction() throws {
        let one = try Preferences(url: file)
        let two = try Preferences(url: file)
        for round in 0..<5 {
            for i in 0..<200 { try one.set(round * 1000 + i, forKey: "k\(i)") }
        }
        #expect(two.integer(forKey: "k7") == 4007)
        try one.compact()
        #expect(one.storage.generation >= 1)
        // `two` still maps the replaced file: it must notice and reopen, then keep writing
        // where `one` sees it.
        #expect(two.integer(forKey: "k199") == 4199)
        try two.set("after", forKey: "late")
        #expect(one.string(forKey: "late") == "after")
        #expect(two.storage.generation == one.storage.generation)
    }

    @Test func aLogGrowsWhileAnotherInstanceReadsIt() throws {
        let one = try Preferences(url: file)
        let two = try Preferences(url: file)
        #expect(two.keys.isEmpty)
        let big = String(repeating: "x", count: 4000)
        for i in 0..<100 { try one.set(big + "\(i)", forKey: "big\(i)") }
        #expect(two.string(forKey: "big99") == big + "99")
        #expect(two.keys.count == 100)
    }
}

/// The in-memory index (``KeyIndex``) follows another process's sets, overwrites and
/// removals, applied record by record when this process catches up, and its compaction,
/// after which the index is rebuilt from the new file.
@Suite struct IndexAcrossProcessesTests {
    let folder = TemporaryFolder("prefs-index-processes")
    var file: URL { folder.file("shared.stashprefs") }

    private func expectChurned(_ prefs: Preferences, prefix: String, compacted: Bool) {
        for i in 0..<300 {
            #expect(prefs.object(forKey: "\(prefix)-\(i)") == (i % 3 == 0 ? nil : .integer(Int64(2000 + i))), "\(prefix)-\(i)")
        }
        #expect(prefs.string(forKey: "\(prefix)-after") == (compacted ? "after" : nil))
    }

    @Test func readsFollowAnotherProcesssWritesAndRemovals() throws {
        let prefs = try Preferences(url: file)
        for i in 0..<100 { try prefs.set(i, forKey: "parent-\(i)") }
        // Every key is read once, so that the reads below go through an index this process
        // has been using, not a fresh one.
        #expect((0..<100).allSatisfy { prefs.integer(forKey: "parent-\($0)") == $0 })

        let child = try ChildProcess.testHost("preferences.churn", file.path, "a", "no")
        #expect(child.readAllLines() == ["done"])
        #expect(child.wait() == 0)
        expectChurned(prefs, prefix: "a", compacted: false)
        #expect((0..<100).allSatisfy { prefs.object(forKey: "parent-\($0)") == ($0 < 50 ? nil : .integer(Int64($0))) })
        #expect(prefs.keys.count == 200 + 50)

        // This process writes again after the catch-up, then the child compacts.
        for i in 0..<50 { try prefs.set("back \(i)", forKey: "parent-\(i)") }
        let compacting = try ChildProcess.testHost("preferences.churn", file.path, "b", "yes")
        #expect(compacting.readAllLines() == ["churned", "done"])
        #expect(compacting.wait() == 0)
        expectChurned(prefs, prefix: "a", compacted: false)
        expectChurned(prefs, prefix: "b", compacted: true)
        #expect((0..<100).allSatisfy { prefs.object(forKey: "parent-\($0)") == ($0 < 50 ? nil : .integer(Int64($0))) })
        #expect(prefs.keys.count == 2 * 200 + 50 + 1)

        // A fresh open agrees with the index this process kept up to date.
        let reopened = try Preferences(url: file)
        #expect(Set(reopened.keys) == Set(prefs.keys))
        for key in prefs.keys { #expect(reopened.object(forKey: key) == prefs.object(forKey: key), "\(key)") }
    }
}
