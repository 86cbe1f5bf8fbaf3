import Foundation
import Observation
import StashCore
import StashTestSupport
import Testing
@testable import StashSecure

extension Vault.Key where Value == Bool {
    fileprivate static let signedIn = Vault.Key<Bool>("signed-in")
}

/// A model as an app writes one: `@Observable`, its vault entry behind the wrapper.
@Observable private final class AccountModel {
    var title = "account"
    @ObservationIgnored @VaultEntry<Bool> var signedIn: Bool?
    init(vault: Vault) { _signedIn = VaultEntry(.signedIn, in: vault) }
}

/// `Vault.Observed` and `@VaultEntry`: a read inside `withObservationTracking` is tracked,
/// and a change of the entry fires `onChange`: at once through the same vault, within the
/// watch interval from another process or vault on the file, on `refresh()` for a Keychain.
struct ObservedVaultEntryTests {
    let fixture = VaultFixture()

    @Test func aChangeThroughTheVaultFiresBeforeTheWriteReturns() throws {
        let vault = try fixture.vault()
        let signedIn = vault.observed(.signedIn)
        #expect(signedIn.value == nil)
        #expect(!signedIn.isPresent)
        let value = ObservationFirings { _ = signedIn.value }
        let presence = ObservationFirings { _ = signedIn.isPresent }
        try vault.set("other", forKey: "unrelated")
        #expect(value.count == 0 && presence.count == 0, "another entry's change must not fire")
        try vault.set(true, for: .signedIn)
        #expect(value.count == 1 && presence.count == 1)
        #expect(signedIn.value == true && signedIn.isPresent)

        let valueOnly = ObservationFirings { _ = signedIn.value }
        let presenceOnly = ObservationFirings { _ = signedIn.isPresent }
        try signedIn.set(false)
        #expect(valueOnly.count == 1 && signedIn.value == false)
        #expect(presenceOnly.count == 0, "still present: the presence did not change")
        try signedIn.removeValue()
        #expect(presenceOnly.count == 1 && !signedIn.isPresent && signedIn.value == nil)
    }

    @Test func aChangeFromAnotherTaskFires() async throws {
        let vault = try fixture.vault()
        let signedIn = vault.observed(.signedIn)
        let firings = ObservationFirings { _ = signedIn.value }
        try await Task.detached { try vault.set(true, for: .signedIn) }.value
        #expect(await eventually { firings.count > 0 && signedIn.value == true })
    }

    /// Another `Vault` on the same file shares nothing with this one but the file: only the
    /// watch of the file can tell.
    @Test func aChangeThroughAnotherVaultOnTheFileFires() async throws {
        let vault = try fixture.vault()
        let model = AccountModel(vault: vault)
        let firings = ObservationFirings { _ = model.signedIn }
        model.title = "renamed"
        #expect(firings.count == 0)
        try fixture.vault().set(true, for: .signedIn)
        #expect(await eventually { firings.count > 0 && model.signedIn == true })
    }

    @Test func aChangeFromAnotherProcessFires() async throws {
        let vault = try fixture.vault()
        try vault.set("before", forKey: "seed")  // the key file exists before the child runs
        let entry = vault.observed(Vault.Key<String>("child-0"))
        let firings = ObservationFirings { _ = entry.value }
        let child = try ChildProcess.testHost("secure.write-many", fixture.keyring.folder.path, "com.example.app", "child", "1")
        #expect(child.readAllLines() == ["ready", "wrote child-0"])
        #expect(child.wait() == 0, "child failed: \(child.standardError())")
        #expect(await eventually { firings.count > 0 && entry.value == "value of child-0" })
    }

    /// The Keychain tells no one: another vault's change is seen on `refresh()`, this
    /// vault's at once.
    @Test func aKeychainVaultSeesOtherWritersOnRefresh() throws {
        let keychain = FakeKeychain()
        func keychainVault() -> Vault {
            let storage = Vault.keychainStorage(service: "com.example.app", accessGroup: nil, accessibility: .afterFirstUnlock, calls: keychain, fallsBackToFile: false)
            return Vault(service: "com.example.app", accessGroup: nil, storage: storage)
        }
        let vault = keychainVault()
        let signedIn = vault.observed(.signedIn)
        try keychainVault().set(true, for: .signedIn)
        #expect(signedIn.value == nil, "nothing tells this vault")
        let firings = ObservationFirings { _ = signedIn.value }
        signedIn.refresh()
        #expect(firings.count == 1 && signedIn.value == true)
        let again = ObservationFirings { _ = signedIn.value }
        try vault.set(false, for: .signedIn)
        #expect(again.count == 1 && signedIn.value == false)
    }

    @Test func anEntryThatDoesNotDecodeSetsTheErrorAndKeepsTheValue() throws {
        let vault = try fixture.vault()
        let signedIn = vault.observed(.signedIn)
        try signedIn.set(true)
        let firings = ObservationFirings { _ = signedIn.error }
        try vault.set("not json", forKey: "signed-in")
        #expect(firings.count == 1)
        #expect(signedIn.error?.code == .typeMismatch)
        #expect(signedIn.value == true, "the last good value stays")
        try signedIn.set(false)
        #expect(signedIn.error == nil && signedIn.value == false)
    }

    @Test func aReleasedObjectStopsWatching() throws {
        let vault = try fixture.vault()
        do {
            let entry = vault.observed(.signedIn)
            _ = entry.value
            #expect(vault.watch.isWatchingFile)
        }
        #expect(!vault.watch.isWatchingFile, "the last observer gone, the timer stops")
    }
}
