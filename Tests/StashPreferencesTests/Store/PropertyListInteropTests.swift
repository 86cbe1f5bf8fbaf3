import Foundation
import StashCore
import StashTestSupport
import Testing
@testable import StashPreferences

@Suite struct PropertyListInteropTests {
    let folder = TemporaryFolder("prefs-plist")

    @Test func importsAPlistWrittenByFoundationsUserDefaults() throws {
        let environment = [
            "HOME": folder.file("home").path,
            "XDG_CONFIG_HOME": folder.file("config").path,
        ]
        let suite = "com.example.legacy"
        let child = try ChildProcess.testHost(
            "preferences.foundation-write", suite, "launches=12", "name=Ada", environment: environment
        )
        #expect(child.readAllLines() == ["done"])
        #expect(child.wait() == 0)
        let plist = Preferences.userDefaultsFile(suite: suite, environment: environment)
        #expect(FileStore.exists(plist), "Foundation wrote no \(plist.path)")

        let prefs = try Preferences(url: folder.file("adopted.stashprefs"))
        let imported = try prefs.importUserDefaults(suite: suite, environment: environment)
        #expect(imported == 5)
        #expect(prefs.integer(forKey: "launches") == 12)
        #expect(prefs.string(forKey: "name") == "Ada")
        #expect(prefs.value(forKey: "list", as: [String].self) == ["a", "b"])
        #expect(prefs.bool(forKey: "flag"))
        #expect(prefs.double(forKey: "ratio") == 2.5)
    }

    @Test func exportThenImportKeepsTheValues() throws {
        let source = try Preferences(url: folder.file("source.stashprefs"))
        try source.set(3, forKey: "count")
        try source.set("text", forKey: "string")
        try source.set([1.5, 2.5], forKey: "reals")
        try source.set(Data([1, 2, 3]), forKey: "blob")
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        try source.set(date, forKey: "when")
        source.register(defaults: ["registered": .bool(true)])
        for format in [PropertyListFormat.xml, .binary] {
            let exported = folder.file("export.\(format.rawValue).plist")
            try source.exportPropertyList(to: exported, format: format)
            let target = try Preferences(url: folder.file("target-\(format.rawValue).stashprefs"))
            #expect(try target.importPropertyList(from: exported) == 5)
            #expect(target.storedValues() == source.storedValues())
        }
    }

    @Test func importRejectsANonDictionaryAndStoresNothing() throws {
        let file = folder.file("array.plist")
        try FileStore.write(try PropertyList.array([.integer(1)]).data(format: .xml), to: file)
        let prefs = try Preferences(url: folder.file("target.stashprefs"))
        #expect(throws: StashError.self) { try prefs.importPropertyList(from: file) }
        #expect(throws: StashError.self) { try prefs.importPropertyList(from: folder.file("missing.plist")) }
        #expect(prefs.keys.isEmpty)
    }
}
