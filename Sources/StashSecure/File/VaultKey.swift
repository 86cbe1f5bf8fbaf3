public import Foundation

/// Where the key of an encrypted vault file comes from.
///
/// ```swift
/// let keyring = Keyring()                                                      // ~/.local/share/keyrings/stash
/// let local  = try Vault(service: "notes", keyring: keyring, key: .keyFile())  // …/master.key
/// let asked  = try Vault(service: "notes", keyring: keyring, key: .passphrase(typedByUser))   // scrypt
/// let server = try Vault(service: "api", keyring: keyring, key: .environment())               // $STASH_VAULT_KEY
/// ```
///
/// The key itself is never written anywhere except the master key file (owner-only, 0600),
/// and entry names and values are only ever written encrypted.
public enum VaultKey: Sendable, Hashable {
    /// A 32-byte master key in a file, created on first use with owner-only permissions
    /// (0600) inside an owner-only folder. `nil` means the keyring's `master.key`.
    ///
    /// The file holds the key as base64 text. A key file that the group or others can read
    /// or write, or that belongs to another user, is refused with
    /// ``StashCore/StashError/Code/insecureKeyFile``.
    case keyFile(URL? = nil)
    /// A passphrase, stretched with scrypt. The salt and the cost are stored in the vault
    /// header; `cost` applies when a vault is created or rotated.
    case passphrase(String, cost: ScryptCost = .default)
    /// A master key in an environment variable, for servers: the base64 of exactly 32 random
    /// bytes, e.g. `export STASH_VAULT_KEY=$(head -c 32 /dev/urandom | base64)`.
    case environment(variable: String = VaultKey.environmentVariable, values: [String: String] = ProcessInfo.processInfo.environment)

    /// The default environment variable of ``environment(variable:values:)``: `STASH_VAULT_KEY`.
    public static let environmentVariable = "STASH_VAULT_KEY"

    /// Whether this key is a passphrase (as opposed to raw key material).
    var isPassphrase: Bool {
        if case .passphrase = self { return true }
        return false
    }
}

/// How expensive scrypt is when it turns a passphrase into a key: `N = 2^log2N`, block size
/// `r`, parallelism `p`. Memory is about `128 · N · r` bytes.
///
/// ```swift
/// let strong = ScryptCost.default                   // N = 2^15, r = 8, p = 1: 32 MiB
/// let fast = ScryptCost(log2N: 4, r: 1, p: 1)        // tests only
/// ```
public struct ScryptCost: Sendable, Hashable {
    /// log2 of the CPU/memory cost `N`, 1…24.
    public var log2N: UInt8
    /// The block size `r`, 1…32.
    public var r: UInt32
    /// The parallelism `p`, 1…16.
    public var p: UInt32

    /// N = 2^15, r = 8, p = 1: the cost recommended for interactive logins (32 MiB).
    public static let `default` = ScryptCost(log2N: 15, r: 8, p: 1)

    public init(log2N: UInt8, r: UInt32, p: UInt32) {
        self.log2N = log2N
        self.r = r
        self.p = p
    }

    /// Whether the parameters are within the bounds this build accepts (a crafted header
    /// must not make us allocate gigabytes).
    var isReasonable: Bool {
        (1...24).contains(log2N) && (1...32).contains(r) && (1...16).contains(p)
    }
}
