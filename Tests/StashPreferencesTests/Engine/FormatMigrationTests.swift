import Foundation
import StashCore
import StashTestSupport
import Testing
@testable import StashPreferences

/// A suite written by format version 1 (today's main before compact records) still opens
/// with every value, and migrates to the current format on its first write.
@Suite struct FormatMigrationTests {
    let folder = TemporaryFolder("prefs-migration")
    var file: URL { folder.file("old.stashprefs") }

    func expectFixtureValues(_ prefs: Preferences, extraKeys: Int = 0) {
        #expect(prefs.integer(forKey: "answer") == 42)
        #expect(prefs.integer(forKey: "negative") == -7)
        #expect(prefs.value(forKey: "big", as: UInt64.self) == .max)
        #expect(prefs.string(forKey: "greeting") == "hello, world")
        #expect(prefs.bool(forKey: "flag"))
        #expect(prefs.double(forKey: "ratio") == 2.5)
        #expect(prefs.value(forKey: "float", as: Float.self) == 1.25)
        #expect(prefs.value(forKey: "date", as: Date.self) == Date(timeIntervalSinceReferenceDate: 700_000_000))
        #expect(prefs.data(forKey: "blob") == Data([1, 2, 3, 255]))
        #expect(prefs.url(forKey: "link") == URL(string: "https://example.com/a?b=c"))
        #expect(prefs.value(forKey: "id", as: UUID.self) == UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect(prefs.value(forKey: "list", as: [String].self) == ["a", "b", "c"])
        #expect(prefs.value(forKey: "font", as: [String: Int].self) == ["size": 12, "weight": 700])
        #expect(prefs.object(forKey: "profile") == .json(Data("{\"name\":\"Ada\"}".utf8)))
        #expect(prefs.string(forKey: "cafe\u{301}") == "caf\u{E9}")
        #expect(prefs.object(forKey: "removed") == nil)
        #expect(prefs.integer(forKey: "overwritten") == 2)
        #expect(prefs.string(forKey: "expiring") == "until 2100")
        #expect(prefs.keys.count == 17 + extraKeys)
    }

    @Test func aVersion1LogOpensWithEveryValue() throws {
        try FileStore.write(FormatVersion1Fixture.bytes, to: file)
        let prefs = try Preferences(url: file)
        #expect(prefs.recoveryReport == nil)
        expectFixtureValues(prefs)
        prefs.close()
        // Reading does not rewrite the file.
        #expect(try FileStore.read(file) == FormatVersion1Fixture.bytes)
    }

    @Test func theFirstWriteMigratesToTheCurrentFormat() throws {
        try FileStore.write(FormatVersion1Fixture.bytes, to: file)
        let prefs = try Preferences(url: file)
        try prefs.set("new", forKey: "added")
        expectFixtureValues(prefs, extraKeys: 1)
        prefs.close()

        let bytes = try FileStore.read(file)
        #expect(bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 8, as: UInt32.self) } == LogFile.version)
        let reopened = try Preferences(url: file)
        #expect(reopened.recoveryReport == nil)
        expectFixtureValues(reopened, extraKeys: 1)
        #expect(reopened.string(forKey: "added") == "new")
        // The expiry survived the migration.
        let entry = reopened.engine.withLock { $0.index["expiring"] }
        #expect(abs((entry?.expiry ?? 0) - 4_102_444_800) < 1)
    }

    @Test func aVersion1LogIsSmallerOnceMigrated() throws {
        try FileStore.write(FormatVersion1Fixture.bytes, to: file)
        let prefs = try Preferences(url: file)
        try prefs.compact()
        #expect(prefs.storage.usedBytes < FormatVersion1Fixture.bytes.count)
    }
}
