import Foundation
import StashCore
import StashTestSupport
import Testing
@testable import StashPreferences

@Suite struct MMKVImportTests {
    let folder = TemporaryFolder("prefs-mmkv")
    var mmkv: URL { folder.file("settings") }
    var suite: URL { folder.file("settings.stashprefs") }

    func sample() -> MMKVFixture {
        var fixture = MMKVFixture()
        fixture.set(.bool(true), forKey: "muted")
        fixture.set(.int32(-42), forKey: "offset")
        fixture.set(.int64(9_000_000_000), forKey: "bytesSent")
        fixture.set(.uint64(UInt64.max), forKey: "mask")
        fixture.set(.float(1.5), forKey: "scale")
        fixture.set(.double(0.8), forKey: "volume")
        fixture.set(.string("Ada Lovelace"), forKey: "name")
        fixture.set(.string("caf\u{E9} \u{1F600}"), forKey: "greeting")
        fixture.set(.bytes([0xFF, 0x00, 0xFE]), forKey: "token")
        fixture.set(.int32(1), forKey: "launches")
        fixture.set(.int32(2), forKey: "launches")  // appended later: replaces
        fixture.set(.string("gone"), forKey: "temporary")
        fixture.remove("temporary")
        fixture.set(.string(""), forKey: "empty")
        return fixture
    }

    @Test func everyValueOfAnMMKVFileIsImported() throws {
        try sample().write(to: mmkv)
        let prefs = try Preferences(url: suite)
        try prefs.set("kept", forKey: "mine")
        let count = try prefs.importMMKV(file: mmkv, types: [
            "muted": .bool, "mask": .unsignedInteger, "scale": .float, "volume": .double, "empty": .string,
        ])
        #expect(count == 11)
        prefs.close()

        let reopened = try Preferences(url: suite)
        #expect(reopened.object(forKey: "muted") == .bool(true))
        #expect(reopened.integer(forKey: "offset") == -42)
        #expect(reopened.value(forKey: "bytesSent", as: Int64.self) == 9_000_000_000)
        #expect(reopened.value(forKey: "mask", as: UInt64.self) == .max)
        #expect(reopened.object(forKey: "scale") == .float(1.5))
        #expect(reopened.object(forKey: "volume") == .double(0.8))
        #expect(reopened.string(forKey: "name") == "Ada Lovelace")
        #expect(reopened.string(forKey: "greeting") == "caf\u{E9} \u{1F600}")
        #expect(reopened.data(forKey: "token") == Data([0xFF, 0x00, 0xFE]))
        #expect(reopened.integer(forKey: "launches") == 2)
        #expect(reopened.object(forKey: "temporary") == nil)
        #expect(reopened.string(forKey: "empty") == "")
        #expect(reopened.string(forKey: "mine") == "kept")
        #expect(reopened.keys.count == 12)
    }

    @Test func withoutTypesValuesAreGuessed() throws {
        try sample().write(to: mmkv)
        let prefs = try Preferences(url: suite)
        try prefs.importMMKV(file: mmkv)
        #expect(prefs.bool(forKey: "muted"))          // the integer 1
        #expect(prefs.integer(forKey: "offset") == -42)
        #expect(prefs.object(forKey: "volume") == .double(0.8))
        #expect(prefs.object(forKey: "scale") == .float(1.5))
        #expect(prefs.string(forKey: "name") == "Ada Lovelace")
        #expect(prefs.data(forKey: "token") == Data([0xFF, 0x00, 0xFE]))
    }

    @Test func aChecksumMismatchImportsNothing() throws {
        var (file, crc) = sample().files()
        file[10] ^= 0x01
        try FileStore.write(file, to: mmkv)
        try FileStore.write(crc, to: URL(fileURLWithPath: mmkv.path + ".crc"))
        let prefs = try Preferences(url: suite)
        let error = try #require(throws: StashError.self) { try prefs.importMMKV(file: mmkv) }
        #expect(error.code == .corruptFile)
        #expect(error.path == mmkv.path)
        #expect(prefs.keys.isEmpty)
    }

    @Test func aWrongTypeOrABrokenFileImportsNothing() throws {
        try sample().write(to: mmkv)
        let prefs = try Preferences(url: suite)
        let mismatch = try #require(throws: StashError.self) { try prefs.importMMKV(file: mmkv, types: ["name": .double]) }
        #expect(mismatch.code == .typeMismatch)
        #expect(mismatch.key == "name")

        let (file, _) = sample().files(slack: 0)
        try FileStore.delete(URL(fileURLWithPath: mmkv.path + ".crc"))
        try FileStore.write(file.prefix(file.count - 3), to: mmkv)
        let truncated = try #require(throws: StashError.self) { try prefs.importMMKV(file: mmkv) }
        #expect(truncated.code == .corruptFile)
        #expect(prefs.keys.isEmpty)

        let missing = try #require(throws: StashError.self) { try prefs.importMMKV(file: folder.file("none")) }
        #expect(missing.code == .notFound)
    }
}
