import Foundation
import StashCore
import StashSecure
import Testing

/// A vault's entry names follow the package's key rule (Swift's
/// `==`, NFC on disk, NUL refused), before and after the vault is opened again.
struct VaultKeyIdentityTests {
    @Test func canonicallyEquivalentNamesAreOneEntryAcrossReopen() throws {
        let fixture = VaultFixture()
        let first = try fixture.vault()
        try first.set("composed", forKey: "caf\u{E9}")
        try first.set("decomposed", forKey: "cafe\u{301}")     // the same entry
        try first.set("ring", forKey: "\u{212B}ngstr\u{F6}m")  // Ångström sign
        #expect(try first.allKeys.count == 2)

        let reopened = try fixture.vault()
        #expect(try reopened.string(forKey: "caf\u{E9}") == "decomposed")
        #expect(try reopened.string(forKey: "cafe\u{301}") == "decomposed")
        #expect(try reopened.string(forKey: "\u{C5}ngstro\u{308}m") == "ring")
        #expect(try reopened.allKeys == ["caf\u{E9}", "\u{C5}ngstr\u{F6}m"].sorted())
        try reopened.removeValue(forKey: "cafe\u{301}")
        #expect(try fixture.vault().string(forKey: "caf\u{E9}") == nil)
    }

    @Test func lookAlikeNamesStayDistinct() throws {
        let fixture = VaultFixture()
        let vault = try fixture.vault()
        try vault.set("latin", forKey: "a")
        try vault.set("cyrillic", forKey: "\u{430}")
        let reopened = try fixture.vault()
        #expect(try reopened.string(forKey: "a") == "latin")
        #expect(try reopened.string(forKey: "\u{430}") == "cyrillic")
    }

    @Test func namesHoldingNULAreRefused() throws {
        let fixture = VaultFixture()
        let vault = try fixture.vault()
        try vault.set("kept", forKey: "nul")
        for name in ["\0", "nul\0A", "\0nul"] {
            #expect(errorCode { try vault.set("x", forKey: name) } == .invalidKey)
            #expect(errorCode { _ = try vault.string(forKey: name) } == .invalidKey)
            #expect(errorCode { try vault.removeValue(forKey: name) } == .invalidKey)
        }
        #expect(try fixture.vault().allKeys == ["nul"])
        #expect(try fixture.vault().string(forKey: "nul") == "kept")
    }
}
