import Foundation
import Logging
import StashCore
import StashTestSupport
@testable import StashSecure
import Testing

/// What a Keychain vault does when the process lacks the Keychain entitlement (macOS:
/// `swift test`, `stash vault`, unsigned tools): it keeps its entries in the user's keyring,
/// and says so once in the log.
struct KeychainFallbackTests {
    let keychain = FakeKeychain()
    let fixture = VaultFixture()
    let messages = LogMessages()

    func vault(fallsBack: Bool = true, group: String? = nil) -> Vault {
        let storage = Vault.keychainStorage(
            service: "com.example.tool", accessGroup: group, accessibility: .afterFirstUnlock, calls: keychain,
            fallsBackToFile: fallsBack, keyring: fixture.keyring, logger: messages.logger
        )
        return Vault(service: "com.example.tool", accessGroup: group, storage: storage)
    }

    @Test func aMissingEntitlementMovesTheVaultToItsFileWithOneLogLine() throws {
        keychain.isEntitled = false
        let vault = vault()
        #expect(vault.file == nil)
        try vault.set("s3cr3t", forKey: "token")
        try vault.set("other", forKey: "second")
        #expect(try vault.string(forKey: "token") == "s3cr3t")
        #expect(try vault.allKeys == ["second", "token"])

        #expect(vault.file == fixture.keyring.vaultFile(service: "com.example.tool", accessGroup: nil))
        #expect(FileStore.exists(fixture.keyring.vaultFile(service: "com.example.tool", accessGroup: nil)))
        #expect(keychain.log == ["update"])           // refused once, then never asked again
        #expect(keychain.items.isEmpty)
        let logged = messages.all
        #expect(logged.count == 1)
        #expect(logged.first?.level == .warning)
        #expect(logged.first?.message.contains("missing entitlement") == true)
        #expect(logged.first?.metadata["reason"]?.contains("-34018") == true)

        // The file vault is a plain file vault: another vault of the keyring reads it.
        #expect(try fixture.vault("com.example.tool").string(forKey: "token") == "s3cr3t")
    }

    @Test func aSharedVaultFallsBackToItsGroupFile() throws {
        keychain.isEntitled = false
        let vault = vault(group: "TEAMID.com.example.shared")
        try vault.set("s", forKey: "token")
        #expect(vault.file == fixture.keyring.vaultFile(service: "com.example.tool", accessGroup: "TEAMID.com.example.shared"))
    }

    @Test func anEntitledProcessStaysInTheKeychain() throws {
        let vault = vault()
        try vault.set("s3cr3t", forKey: "token")
        #expect(try vault.string(forKey: "token") == "s3cr3t")
        #expect(vault.file == nil)
        #expect(keychain.items.count == 1)
        #expect(messages.all.isEmpty)
        #expect(!FileStore.exists(fixture.keyring.folder))
    }

    /// A locked device is not a missing entitlement: it is reported, and nothing moves.
    @Test func aLockedKeychainDoesNotFallBack() throws {
        keychain.isLocked = true
        let vault = vault()
        #expect(errorCode { try vault.set("s", forKey: "token") } == .locked)
        #expect(vault.file == nil)
        #expect(messages.all.isEmpty)
    }

    @Test func withoutTheFallbackTheRefusalIsReported() throws {
        keychain.isEntitled = false
        let vault = vault(fallsBack: false)
        #expect(errorCode { try vault.set("s", forKey: "token") } == .permissionDenied)
        #expect(!FileStore.exists(fixture.keyring.folder))
    }
}
