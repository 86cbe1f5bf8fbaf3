import Foundation
import StashCore
import StashSecure
import StashTestSupport
import Testing

struct VaultRotationTests {
    private func fill(_ vault: Vault) throws -> [String: String] {
        var expected: [String: String] = [:]
        for index in 0..<12 {
            expected["entry-\(index)"] = "secret number \(index)"
            try vault.set("secret number \(index)", forKey: "entry-\(index)")
        }
        return expected
    }

    private func contents(_ vault: Vault) throws -> [String: String] {
        var found: [String: String] = [:]
        for name in try vault.allKeys { found[name] = try vault.string(forKey: name) }
        return found
    }

    @Test func aNewPassphraseKeepsEveryValue() throws {
        let fixture = VaultFixture()
        let vault = try fixture.passphraseVault("old passphrase")
        let expected = try fill(vault)
        let before = try fixture.fileBytes(of: vault)

        try vault.rotate(to: .passphrase("new passphrase", cost: VaultFixture.fastCost))

        #expect(try contents(vault) == expected)
        #expect(try contents(fixture.passphraseVault("new passphrase")) == expected)
        #expect(errorCode { _ = try fixture.passphraseVault("old passphrase").allKeys } == .wrongPassphrase)
        let after = try fixture.fileBytes(of: vault)
        #expect(before.dropFirst(20).prefix(16) != after.dropFirst(20).prefix(16), "rotation must use a fresh salt")
    }

    @Test func fromKeyFileToPassphraseAndToANewKeyFile() throws {
        let fixture = VaultFixture()
        let vault = try fixture.vault()
        let expected = try fill(vault)

        try vault.rotate(to: .passphrase("now a passphrase", cost: VaultFixture.fastCost))
        #expect(try contents(fixture.passphraseVault("now a passphrase")) == expected)
        #expect(errorCode { _ = try fixture.vault().allKeys } == .wrongKey)

        let newKeyFile = fixture.keyring.folder.appendingPathComponent("rotated.key")
        try vault.rotate(to: .keyFile(newKeyFile))
        #expect(try fixture.mode(of: newKeyFile) == 0o600)
        #expect(try contents(fixture.vault(key: .keyFile(newKeyFile))) == expected)
        #expect(errorCode { _ = try fixture.passphraseVault("now a passphrase").allKeys } == .wrongKey)
        // Writes after a rotation use the new key.
        try vault.set("after rotation", forKey: "late")
        #expect(try fixture.vault(key: .keyFile(newKeyFile)).string(forKey: "late") == "after rotation")
    }

    @Test func aFailedRotationChangesNothing() throws {
        let fixture = VaultFixture()
        try fixture.passphraseVault("right").set("kept", forKey: "k")
        let before = try fixture.fileBytes(of: fixture.passphraseVault("right"))
        let wrong = try fixture.passphraseVault("wrong")
        #expect(errorCode { try wrong.rotate(to: .passphrase("new", cost: VaultFixture.fastCost)) } == .wrongPassphrase)
        #expect(try fixture.fileBytes(of: wrong) == before)
        #expect(errorCode { try wrong.rotate(to: .passphrase("new", cost: ScryptCost(log2N: 40, r: 1, p: 1))) } == .unsupportedValue)
    }
}
