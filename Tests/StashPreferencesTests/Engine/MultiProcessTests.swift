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
        try two.removeObject(forKey: "x")
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
