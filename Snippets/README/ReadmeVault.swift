import Foundation
import StashCore      // Sandbox
import StashSecure

// snippet.hide
struct Credentials: Codable { var user: String; var password: String }
let typed = "correct horse", newPassphrase = "battery staple"
// snippet.show
let vault = try Vault(service: "com.example.notes")          // Keychain / user keyring
try vault.set("s3cr3t", forKey: "api-token")                  // String (UTF-8)
try vault.set(Credentials(user: "ada", password: "…"), forKey: "login")   // Codable (JSON)
let token = try vault.string(forKey: "api-token")
try vault.set(nil as String?, forKey: "api-token")            // storing nil removes
print(try vault.allKeys); try vault.removeAll()

// Typed keys, as in Preferences; reads and writes throw: a secret that failed must be seen.
let refresh = Vault.Key<String>("refresh-token")
try vault.set("r-123", for: refresh)
let value: String? = try vault[refresh]

// Shared between one vendor's apps: every Vault of the group sees the same entries.
let shared = try Vault(service: "com.example.widget", accessGroup: "TEAMID.com.example.shared")

// Encrypted files anywhere (Linux default), with the key you choose:
let keyring = Keyring(folder: try Sandbox.main.url(for: .applicationSupport).appendingPathComponent("keyring"))
let server = try Vault(service: "api", keyring: keyring, key: .environment())        // $STASH_VAULT_KEY
let diary = try Vault(service: "diary", keyring: keyring, key: .passphrase(typed))   // scrypt
try diary.rotate(to: .passphrase(newPassphrase))                                      // one atomic step
// snippet.hide
print("token \(token ?? "-") refresh \(value ?? "-")")
try server.set("x", forKey: "k"); try shared.set("y", forKey: "k")
print("server \(try server.string(forKey: "k") ?? "-")")
