import Foundation
import Stash

extension Tour {
    @Sendable static func secureStorage(_ tour: Tour) async throws {
        // The keyring sits beside the app's folders, not inside them: deleting the app's data
        // keeps its secrets, as the Keychain does.
        let keyring = Keyring(for: tour.sandbox)
        let vault = try Vault(service: tour.sandbox.app, keyring: keyring, key: .keyFile())
        try vault.set("tok-4f9a2c", forKey: "api-token")
        try vault.set(Data([0xDE, 0xAD, 0xBE, 0xEF]), forKey: "signing-key")
        let refresh = Vault.Key<String>("refresh-token")
        try vault.set("r-77", for: refresh)
        let names = try vault.allKeys
        let token = try vault.string(forKey: "api-token") ?? "nil"
        let refreshed = try vault[refresh] ?? "nil"
        tour.say("Vault(service: \"\(vault.service)\") holds \(names.joined(separator: ", "))")
        tour.say("api-token reads back as \(token), refresh-token as \(refreshed)")

        let bytes = try vault.file.map(FileStore.read) ?? Data()
        let visible = ["tok-4f9a2c", "api-token", Data("tok-4f9a2c".utf8).base64EncodedString()]
            .filter { bytes.range(of: Data($0.utf8)) != nil }
        tour.say("The vault file is \(bytes.count) bytes of ChaChaPoly records; clear text found in it: \(visible.isEmpty ? "none" : visible.joined(separator: ", "))")

        let shared = try Vault(service: "com.example.widget", accessGroup: "TEAM.com.example.shared", keyring: keyring)
        try shared.set("shared-session", forKey: "session")
        let sibling = try Vault(service: tour.sandbox.app, accessGroup: "TEAM.com.example.shared", keyring: keyring)
        let session = try sibling.string(forKey: "session") ?? "nil"
        tour.say("A widget's shared vault is read by the app through the access group: \(session)")

        // A cheap scrypt cost keeps the tour quick; real vaults keep the default (2^15).
        let cost = ScryptCost(log2N: 12, r: 8, p: 1)
        let locked = try Vault(service: "com.example.diary", keyring: keyring, key: .passphrase("correct horse", cost: cost))
        try locked.set("dear diary", forKey: "page-1")
        do {
            _ = try Vault(service: "com.example.diary", keyring: keyring, key: .passphrase("battery staple", cost: cost))
                .string(forKey: "page-1")
        } catch let error as StashError {
            tour.say("A wrong passphrase: \(error.code) (the file is left untouched)")
        }
        try locked.rotate(to: .passphrase("new passphrase", cost: cost))
        let reopened = try Vault(service: "com.example.diary", keyring: keyring, key: .passphrase("new passphrase", cost: cost))
        let page = try reopened.string(forKey: "page-1") ?? "nil"
        tour.say("After rotation to a new passphrase, page-1 still reads \(page)")

        tour.say("On disk (folders 0700, files 0600; names and values encrypted):")
        tour.showFiles(under: keyring.folder)
    }
}
