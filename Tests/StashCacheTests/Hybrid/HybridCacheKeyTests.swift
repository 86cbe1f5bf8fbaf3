import Foundation
import StashCache
import StashCore
import StashTestSupport
import Testing

/// The key identity rule in a hybrid cache: memory follows Swift's `==`, the disk saves NFC,
/// so both sides agree before and after a reopen; NUL is refused before either side changes.
struct HybridCacheKeyTests {
    let fixture = DiskCacheFixture()

    @Test(arguments: [("caf\u{E9}", "cafe\u{301}"), ("\u{C5}", "\u{212B}")])
    func canonicallyEquivalentKeysAreOneKeyAcrossReopen(pair: (String, String)) throws {
        let hybrid = HybridCache(disk: try fixture.open(), codec: .json(String.self))
        try hybrid.set("first", forKey: pair.0)
        try hybrid.set("second", forKey: pair.1)
        try hybrid.set("other", forKey: "other")
        #expect(hybrid.value(forKey: pair.0) == "second")
        #expect(hybrid.memory.count == 2)
        try hybrid.disk.close()

        let reopened = HybridCache(disk: try fixture.open(), codec: .json(String.self))
        #expect(reopened.value(forKey: pair.0) == "second")   // from disk
        #expect(reopened.value(forKey: pair.1) == "second")   // from memory now
        #expect(reopened.value(forKey: "other") == "other")
        #expect(reopened.disk.count == 2)
        try reopened.disk.close()
    }

    @Test func keysWithNULAreRefusedOnBothSides() throws {
        let hybrid = HybridCache(disk: try fixture.open(), codec: .json(String.self))
        try hybrid.set("kept", forKey: "nul")
        expectError(.invalidKey) { try hybrid.set("lost", forKey: "nul\0A") }
        #expect(hybrid.value(forKey: "nul\0A") == nil)
        #expect(!hybrid.memory.contains("nul\0A"))
        #expect(hybrid.value(forKey: "nul") == "kept")
        try hybrid.disk.close()
    }
}
