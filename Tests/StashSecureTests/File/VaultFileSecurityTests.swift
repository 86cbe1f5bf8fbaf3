import Foundation
import StashCore
import StashSecure
import StashTestSupport
import Testing

struct VaultFileSecurityTests {
    /// `haystack` contains `needle` as a run of bytes.
    private func contains(_ haystack: Data, _ needle: String) -> Bool {
        haystack.range(of: Data(needle.utf8)) != nil
    }

    @Test(arguments: ["key file", "passphrase"])
    func theFileShowsNoValueNoBase64AndNoName(mode: String) throws {
        let fixture = VaultFixture()
        let passphrase = "a-long-passphrase-to-look-for"
        let vault = mode == "key file" ? try fixture.vault() : try fixture.passphraseVault(passphrase)
        let secret = "hunter2-very-secret-value"
        let binary = Data("binary-secret-bytes-0123456789".utf8)
        try vault.set(secret, forKey: "conspicuous-entry-name")
        try vault.set(binary, forKey: "another-telltale-name")
        try vault.set(Credentials(user: "ada-lovelace", password: "analytical"), forKey: "login")

        let bytes = try fixture.fileBytes(of: vault)
        for needle in [secret, passphrase, "conspicuous-entry-name", "another-telltale-name", "ada-lovelace", "analytical", "login"] {
            #expect(!contains(bytes, needle), "'\(needle)' is in the vault file")
            #expect(!contains(bytes, Data(needle.utf8).base64EncodedString()), "base64 of '\(needle)' is in the vault file")
        }
        #expect(!contains(bytes, "binary-secret-bytes"))
        #expect(!contains(bytes, binary.base64EncodedString()))
    }

    @Test func foldersAndFilesAreOwnerOnly() throws {
        let fixture = VaultFixture()
        let vault = try fixture.vault()
        try vault.set("v", forKey: "k")
        #expect(try fixture.mode(of: fixture.keyring.folder) == 0o700)
        #expect(try fixture.mode(of: vault.file!.deletingLastPathComponent()) == 0o700)
        #expect(try fixture.mode(of: vault.file!) == 0o600)
        #expect(try fixture.mode(of: fixture.keyring.masterKeyFile) == 0o600)
        // The key file is a key, never the vault's content.
        let keyText = String(decoding: try FileStore.read(fixture.keyring.masterKeyFile), as: UTF8.self)
        let trimmed = keyText.trimmingCharacters(in: .whitespacesAndNewlines)
        let key = try #require(Data(base64Encoded: trimmed))
        #expect(key.count == 32)
        // Keys are never written in clear anywhere but their own file.
        let bytes = try fixture.fileBytes(of: vault)
        #expect(bytes.range(of: key) == nil)
        #expect(!contains(bytes, trimmed))
    }

    @Test func changingAnySingleByteIsDetectedAndNothingIsOverwritten() throws {
        let fixture = VaultFixture()
        let vault = try fixture.vault()
        try vault.set("first secret", forKey: "a")
        try vault.set(Data([1, 2, 3]), forKey: "b")
        let original = try fixture.fileBytes(of: vault)
        let url = vault.file!
        for offset in 0..<original.count {
            var damaged = original
            damaged[offset] ^= 0x01
            try FileStore.write(damaged, to: url, durability: .processSafe)
            let code = errorCode { _ = try vault.string(forKey: "a") }
            #expect(code == .tampered || (offset < 8 && code == .corruptFile), "byte \(offset): \(String(describing: code))")
            #expect(errorCode { try vault.set("x", forKey: "c") } == code)
            #expect(try FileStore.read(url) == damaged, "byte \(offset): a damaged vault was overwritten")
        }
        try FileStore.write(original, to: url)
        #expect(try vault.string(forKey: "a") == "first secret")
    }

    @Test func recordsCannotBeSwappedBetweenVaults() throws {
        let fixture = VaultFixture()
        let first = try fixture.vault("one")
        let second = try fixture.vault("two")
        try first.set("one's secret", forKey: "token")
        try second.set("two's secret", forKey: "token")
        // Same key, same layout: only the scope bound into every record tells them apart.
        try FileStore.write(try fixture.fileBytes(of: first), to: second.file!)
        #expect(errorCode { _ = try second.string(forKey: "token") } == .tampered)
        #expect(try first.string(forKey: "token") == "one's secret")
    }

    @Test func aTruncatedFileIsItsOwnError() throws {
        let fixture = VaultFixture()
        let vault = try fixture.vault()
        try vault.set("value", forKey: "k")
        let original = try fixture.fileBytes(of: vault)
        for length in [0, 5, 60, 124, original.count - 33, original.count - 1] {
            try FileStore.write(original.prefix(length), to: vault.file!)
            #expect(errorCode { _ = try vault.allKeys } == .truncatedFile, "length \(length)")
            #expect(errorCode { try vault.set("x", forKey: "y") } == .truncatedFile)
        }
        try FileStore.write(Data("not a vault at all".utf8), to: vault.file!)
        #expect(errorCode { _ = try vault.allKeys } == .corruptFile)
    }

    @Test func aWrongPassphraseIsRejectedAndNothingIsLost() throws {
        let fixture = VaultFixture()
        try fixture.passphraseVault("correct horse").set("kept", forKey: "token")
        let before = try fixture.fileBytes(of: fixture.passphraseVault("correct horse"))
        let wrong = try fixture.passphraseVault("battery staple")
        #expect(errorCode { _ = try wrong.string(forKey: "token") } == .wrongPassphrase)
        #expect(errorCode { try wrong.set("overwrite", forKey: "token") } == .wrongPassphrase)
        #expect(errorCode { try wrong.removeAll() } == .wrongPassphrase)
        #expect(try fixture.fileBytes(of: wrong) == before)
        #expect(try fixture.passphraseVault("correct horse").string(forKey: "token") == "kept")
        // A key where a passphrase is expected is a wrong key, not tampering.
        #expect(errorCode { _ = try fixture.vault().allKeys } == .wrongKey)
    }

    @Test func aKeyFileWithLoosePermissionsIsRefused() throws {
        let fixture = VaultFixture()
        let vault = try fixture.vault()
        try vault.set("value", forKey: "k")
        let keyFile = fixture.keyring.masterKeyFile
        for mode: mode_t in [0o640, 0o604, 0o666] {
            #expect(chmod(keyFile.path, mode) == 0)
            #expect(errorCode { _ = try vault.string(forKey: "k") } == .insecureKeyFile)
            #expect(errorCode { try vault.set("x", forKey: "k") } == .insecureKeyFile)
        }
        #expect(chmod(keyFile.path, 0o600) == 0)
        #expect(try vault.string(forKey: "k") == "value")
    }

    @Test func aMissingOrReplacedKeyFileIsAKeyError() throws {
        let fixture = VaultFixture()
        let vault = try fixture.vault()
        try vault.set("value", forKey: "k")
        let keyFile = fixture.keyring.masterKeyFile
        let key = try FileStore.read(keyFile)
        try FileStore.delete(keyFile)
        #expect(errorCode { _ = try vault.string(forKey: "k") } == .keyUnavailable)
        #expect(errorCode { try vault.set("x", forKey: "k") } == .keyUnavailable)
        #expect(!FileStore.exists(keyFile), "a write must not create a new key for an existing vault")
        try FileStore.write(Data((Data(repeating: 7, count: 32).base64EncodedString() + "\n").utf8), to: keyFile)
        #expect(errorCode { _ = try vault.string(forKey: "k") } == .wrongKey)
        try FileStore.write(key, to: keyFile)
        #expect(try vault.string(forKey: "k") == "value")
    }

    @Test func anEnvironmentKeyOpensTheVaultForServers() throws {
        let fixture = VaultFixture()
        let key = Data((0..<32).map { UInt8($0) }).base64EncodedString()
        let environment = ["STASH_VAULT_KEY": key]
        try fixture.vault(key: .environment(values: environment)).set("db-password", forKey: "postgres")
        #expect(try fixture.vault(key: .environment(values: environment)).string(forKey: "postgres") == "db-password")
        #expect(!FileStore.exists(fixture.keyring.masterKeyFile))

        let other = ["STASH_VAULT_KEY": Data(repeating: 1, count: 32).base64EncodedString()]
        #expect(errorCode { _ = try fixture.vault(key: .environment(values: other)).allKeys } == .wrongKey)
        #expect(errorCode { _ = try fixture.vault(key: .environment(values: [:])).allKeys } == .keyUnavailable)
        let short = ["STASH_VAULT_KEY": Data(repeating: 1, count: 16).base64EncodedString()]
        #expect(errorCode { try fixture.vault(key: .environment(values: short)).set("x", forKey: "y") } == .keyUnavailable)
    }
}
