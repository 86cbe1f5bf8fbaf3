import Foundation
import StashCore
import StashTestSupport
import Testing
@testable import StashPreferences

/// Suites written by format versions 1 and 2 still open with every value, and migrate to
/// the current format on their first write.
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

    static let fixtures = [FormatVersion1Fixture.bytes, FormatVersion2Fixture.bytes]

    @Test(arguments: fixtures) func anOlderLogOpensWithEveryValue(_ fixture: Data) throws {
        try FileStore.write(fixture, to: file)
        let prefs = try Preferences(url: file)
        #expect(prefs.recoveryReport == nil)
        expectFixtureValues(prefs)
        prefs.close()
        // Reading does not rewrite the file.
        #expect(try FileStore.read(file) == fixture)
    }

    @Test(arguments: fixtures) func theFirstWriteMigratesToTheCurrentFormat(_ fixture: Data) throws {
        try FileStore.write(fixture, to: file)
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

    @Test(arguments: fixtures) func anOlderLogIsSmallerOnceMigrated(_ fixture: Data) throws {
        try FileStore.write(fixture, to: file)
        let prefs = try Preferences(url: file)
        try prefs.compact()
        #expect(prefs.storage.usedBytes < fixture.count)
        prefs.close()
        let bytes = try FileStore.read(file)
        #expect(bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 8, as: UInt32.self) } == LogFile.version)
    }

    @Test func aDamagedVersion2RecordCostsOnlyThatRecord() throws {
        var bytes = FormatVersion2Fixture.bytes
        // The first record ("answer" = 42) starts right after the 64-byte header:
        bytes[64 + 13] ^= 0x01  // its value, after checksum, length, kind, key length and key
        try FileStore.write(bytes, to: file)
        let prefs = try Preferences(url: file)
        let report = try #require(prefs.recoveryReport)
        #expect(report.damagedKeys == ["answer"])
        #expect(prefs.object(forKey: "answer") == nil)
        #expect(prefs.string(forKey: "greeting") == "hello, world")
        #expect(prefs.keys.count == 16)
        prefs.close()
        // The log was rewritten in the current format.
        #expect(try Preferences(url: file).recoveryReport == nil)
    }
}
