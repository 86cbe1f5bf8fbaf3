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
            for i in 0..<500 { try prefs.set("round \(round) value \(i) padding padding", forKey: "key-\(i)") }
            sizes.append(try FileStore.size(of: file))
        }
        let storage = prefs.storage
        #expect(storage.generation > 0)
        #expect(storage.fileSize <= 8 * storage.liveBytes + 64 * 1024)
        #expect(sizes.last! <= sizes[4])
        #expect(prefs.keys.count == 500)
        #expect(try FileStore.list(folder.url).filter { $0.contains(".compact-") }.isEmpty)
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
