import Foundation
import StashCore
import StashSecure
import StashTestSupport
import Testing

struct KeyringTests {
    @Test func theUserKeyringIsUnderXDGDataHomeOutsideTheApp() throws {
        let keyring = Keyring(environment: ["HOME": "/home/ada", "XDG_DATA_HOME": "/data/ada"])
        #expect(keyring.folder.path == "/data/ada/keyrings/stash")
        #expect(Keyring(environment: ["HOME": "/home/ada"]).folder.path == "/home/ada/.local/share/keyrings/stash")
        #expect(keyring.vaultFile(service: "com.example.app", accessGroup: nil).path == "/data/ada/keyrings/stash/services/com.example.app.vault")
        #expect(keyring.vaultFile(service: "com.example.app", accessGroup: "TEAM.shared").path == "/data/ada/keyrings/stash/groups/TEAM.shared.vault")

        let sandbox = try Sandbox(app: "com.example.app", environment: ["HOME": "/home/ada", "XDG_DATA_HOME": "/data/ada"])
        #expect(!keyring.folder.path.hasPrefix(sandbox.applicationSupport.path))
    }

    @Test func aRootSandboxKeepsItsKeyringBesideItsFolders() throws {
        let folder = TemporaryFolder("secure-keyring")
        let sandbox = folder.sandbox()
        let keyring = Keyring(for: sandbox)
        #expect(keyring.folder.path == sandbox.root!.appendingPathComponent("keyrings/stash").path)
        let vault = try Vault(service: "com.example.app", keyring: keyring)
        try vault.set("kept", forKey: "token")
        // Deleting the app's data leaves its secrets.
        try FileStore.delete(sandbox.applicationSupport)
        try FileStore.delete(sandbox.documents)
        #expect(try vault.string(forKey: "token") == "kept")
    }
}
