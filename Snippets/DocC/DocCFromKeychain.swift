import Foundation
import StashCore
import StashSecure

// Keychain(service: "com.example.notes"), Valet.valet(with:accessibility:)
let vault = try Vault(service: "com.example.notes")
try vault.set("s3cr3t", forKey: "api-token")                 // keychain["api-token"] = "s3cr3t"
let token = try vault.string(forKey: "api-token")            // try keychain.get("api-token")
try vault.set(Data([1, 2, 3]), forKey: "signing-key")        // keychain[data: "signing-key"] = data
let names = try vault.allKeys                                // keychain.allKeys()
try vault.removeValue(forKey: "api-token")                   // try keychain.remove("api-token")

// Codable values and typed keys, which neither library has.
struct Login: Codable, Sendable { var user: String; var password: String }
extension Vault.Key where Value == Login {
    static let login = Vault.Key<Login>("login")
}
try vault.set(Login(user: "ada", password: "…"), for: .login)
let login = try vault[.login]                                // Login?

// .accessibility(.afterFirstUnlockThisDeviceOnly): one class for the vault's entries.
let device = try Vault(service: "com.example.device", accessibility: .afterFirstUnlockThisDeviceOnly)

// Keychain(service:accessGroup:), Valet.sharedGroupValet(with:accessibility:)
let shared = try Vault(service: "com.example.notes", accessGroup: "TEAMID.com.example.shared")

// Errors carry a code, not an OSStatus.
do {
    _ = try vault.string(forKey: "api-token")
} catch StashError.Code.locked {
    // the device is locked and the class does not allow a read now: try again later
}

// Linux: an encrypted file in the user's keyring; a server gives the key in $STASH_VAULT_KEY.
let server = try Vault(service: "api", keyring: Keyring(), key: .environment())
// snippet.hide
try device.set("d", forKey: "k"); try shared.set("s", forKey: "k"); try server.set("x", forKey: "k")
print("token \(token ?? "-") names \(names) after \(try vault.allKeys)")
print("login \(login?.user ?? "-") shared \(try shared.string(forKey: "k") ?? "-") server \(try server.string(forKey: "k") ?? "-")")
