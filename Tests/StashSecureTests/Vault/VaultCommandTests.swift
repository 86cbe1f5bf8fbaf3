import Foundation
import StashCore
import StashSecure
import StashTestSupport
import Testing

/// `stash vault …` run as a real process, secrets on stdin.
struct VaultCommandTests {
    /// Never inherits a passphrase from the environment the tests run in.
    private func stash(_ arguments: [String], input: String = "", environment: [String: String] = [:]) throws -> StashExecutable.Result {
        var overrides: [String: String?] = ["STASH_VAULT_PASSPHRASE": nil]
        for (name, value) in environment { overrides[name] = value }
        return try StashExecutable.run(arguments, input: input, environment: overrides)
    }

    @Test func setGetListDeleteWithTheKeyFile() throws {
        let folder = TemporaryFolder("secure-cli")
        let root = ["--root", folder.url.path]
        #expect(try stash(["vault", "set", "com.example.app", "api-token"] + root, input: "tok-123\n").status == 0)
        #expect(try stash(["vault", "set", "com.example.app", "other"] + root, input: "x").status == 0)
        #expect(try stash(["vault", "get", "com.example.app", "api-token"] + root).output == "tok-123")
        #expect(try stash(["vault", "list", "com.example.app"] + root).output == "api-token\nother\n")
        #expect(try stash(["vault", "delete", "com.example.app", "other"] + root).status == 0)
        let missing = try stash(["vault", "get", "com.example.app", "other"] + root)
        #expect(missing.status != 0)
        #expect(missing.errors.contains("not found"))

        let vault = try Vault(
            service: "com.example.app",
            keyring: Keyring(folder: folder.url.appendingPathComponent("keyrings/stash")),
            key: .keyFile()
        )
        #expect(try vault.string(forKey: "api-token") == "tok-123")
    }

    @Test func groupsAndPassphrases() throws {
        let folder = TemporaryFolder("secure-cli")
        let common = ["--root", folder.url.path, "--scrypt-log2n", "4"]
        #expect(try stash(["vault", "set", "app-one", "session", "--group", "TEAM.shared", "--passphrase-stdin"] + common, input: "pw\nshared value").status == 0)
        let read = try stash(["vault", "get", "app-two", "session", "--group", "TEAM.shared"] + common, environment: ["STASH_VAULT_PASSPHRASE": "pw"])
        #expect(read.output == "shared value")
        let wrong = try stash(["vault", "list", "app-two", "--group", "TEAM.shared", "--passphrase-stdin"] + common, input: "nope\n")
        #expect(wrong.status != 0)
        #expect(wrong.errors.contains("wrong passphrase"))
    }
}
