import Foundation
import StashCore
import StashTestSupport
import Testing
@testable import StashPreferences

/// The key identity rule (StoredKey): canonically equivalent keys are one key, in memory
/// and across a close and reopen; NUL is refused with `.invalidKey`.
@Suite struct KeyIdentityTests {
    let folder = TemporaryFolder("prefs-keys")
    var file: URL { folder.file("keys.stashprefs") }

    @Test func nfcAndNFDSpellingsAreOneKeyAcrossReopen() throws {
        let prefs = try Preferences(url: file)
        try prefs.set("first", forKey: "caf\u{E9}")
        try prefs.set("second", forKey: "cafe\u{301}")
        #expect(prefs.keys == ["caf\u{E9}"])
        #expect(prefs.string(forKey: "caf\u{E9}") == "second")
        prefs.close()

        let reopened = try Preferences(url: file)
        #expect(reopened.keys.count == 1)
        #expect(reopened.string(forKey: "cafe\u{301}") == "second")
        #expect(reopened.string(forKey: "caf\u{E9}") == "second")
        #expect(reopened.contains("cafe\u{301}"))
        // Stored in NFC.
        #expect(reopened.keys.first?.unicodeScalars.count == 4)
    }

    @Test func angstromSignAndLetterAAreOneKeyAcrossReopen() throws {
        let prefs = try Preferences(url: file)
        try prefs.set(1, forKey: "\u{212B}ngstr\u{F6}m")
        prefs.close()
        let reopened = try Preferences(url: file)
        #expect(reopened.integer(forKey: "\u{C5}ngstr\u{F6}m") == 1)
        try reopened.removeValue(forKey: "A\u{30A}ngstro\u{308}m")
        reopened.close()
        #expect(try Preferences(url: file).keys.isEmpty)
    }

    @Test func keysThatOnlyLookAlikeStayDistinctAcrossReopen() throws {
        let prefs = try Preferences(url: file)
        try prefs.set("latin", forKey: "a")
        try prefs.set("cyrillic", forKey: "\u{430}")
        prefs.close()
        let reopened = try Preferences(url: file)
        #expect(reopened.string(forKey: "a") == "latin")
        #expect(reopened.string(forKey: "\u{430}") == "cyrillic")
    }

    @Test func nulIsRefusedAndNothingIsWritten() throws {
        let prefs = try Preferences(url: file)
        try prefs.set("plain", forKey: "nul")
        for key in ["nul\0A", "\0", "caf\u{E9}\0"] {
            let error = try #require(throws: StashError.self) { try prefs.set("x", forKey: key) }
            #expect(error.code == .invalidKey)
            #expect(prefs.object(forKey: key) == nil)
        }
        #expect(throws: StashError.self) { try prefs.increment(forKey: "n\0") }
        prefs.close()
        let reopened = try Preferences(url: file)
        #expect(reopened.keys == ["nul"])
        #expect(reopened.string(forKey: "nul") == "plain")
    }

    @Test func typedKeysRegisteredDefaultsAndObserversFollowTheRule() throws {
        let prefs = try Preferences(url: file)
        prefs.register(defaults: ["cafe\u{301}-default": .integer(3)])
        #expect(prefs.integer(forKey: "caf\u{E9}-default") == 3)
        let key = Preferences.Key("cafe\u{301}-typed", default: 0)
        prefs[key] = 9
        prefs.close()
        #expect(try Preferences(url: file).integer(forKey: "caf\u{E9}-typed") == 9)
    }
}
