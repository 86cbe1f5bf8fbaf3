public import Foundation
import StashCore

/// A place for secrets (tokens, passwords, keys) that must not sit in plain files, that
/// outlive the app's own data, and that can be private to one app or shared by one vendor's
/// apps: the Keychain's role, on Apple platforms and on Linux.
///
/// ```swift
/// let vault = try Vault(service: "com.example.notes")
/// try vault.set("s3cr3t", forKey: "api-token")
/// let token = try vault.string(forKey: "api-token")       // "s3cr3t"
/// try vault.set(nil as String?, forKey: "api-token")      // storing nil removes
///
/// let refresh = Vault.Key<String>("refresh-token")         // typed keys
/// try vault.set("r-123", for: refresh)
/// let value = try vault[refresh]                           // String?
/// ```
///
/// Where the entries live:
/// - **Apple platforms**, with ``init(service:accessGroup:accessibility:)``: Keychain generic
///   passwords, with an ``Accessibility`` class and an optional access group. On macOS a
///   process without a keychain entitlement (an unsigned tool) falls back to the file vault
///   below, with a warning in the log.
/// - **Linux** (and anywhere with ``init(service:accessGroup:keyring:key:)``): one encrypted
///   file per service, or per access group for a shared vault, in a ``Keyring`` under
///   `$XDG_DATA_HOME/keyrings/stash`, outside the app's sandbox. Each record is sealed with
///   ChaChaPoly, bound to its vault and entry; entry names are encrypted too; the whole file
///   is authenticated. The key comes from a ``VaultKey``: a master key file, a passphrase
///   (scrypt) or an environment variable.
///
/// Values: `Data` is stored as is, `String` as UTF-8, any other `Codable` value as JSON.
///
/// **Shared vaults.** Every `Vault` with the same `accessGroup` sees the same entries,
/// whatever its `service`, as apps of one vendor sharing a Keychain access group do.
///
/// **Durability.** A change returns once it is on disk: the vault file is replaced in one
/// atomic, fsynced write, so a crash or a power cut leaves the old vault or the new one.
/// A vault that cannot be read (wrong passphrase or key, tampered, truncated) is never
/// written over: those errors leave every byte in place.
///
/// **Thread safety.** A `Vault` is safe to use from any thread; file vaults also take turns
/// with other processes through a file lock around each change, so concurrent writers lose
/// nothing.
public final class Vault: Sendable {
    /// The service the entries belong to, such as the app's identifier.
    public let service: String
    /// The access group of a shared vault, `nil` for a private one.
    public let accessGroup: String?
    let storage: any VaultStorage
    /// Tells the vault's observed entries (``observed(_:)``) of changes.
    let watch: VaultWatch

    /// The platform's vault: the Keychain on Apple platforms; elsewhere an encrypted file in
    /// the user's ``Keyring`` locked by its master key file (created on first use).
    ///
    /// ```swift
    /// let mine = try Vault(service: "com.example.notes")
    /// let shared = try Vault(service: "com.example.notes", accessGroup: "TEAMID.com.example.shared")
    /// ```
    ///
    /// **macOS without a keychain entitlement.** The Keychain vault is in the data protection
    /// keychain, which refuses processes without a keychain entitlement (unsigned tools,
    /// `swift test`, `stash vault`). At the first refusal such a vault logs one warning
    /// (`stash.vault`) and keeps its entries in the user's ``Keyring`` file under its master
    /// key file, as on Linux; entries are not moved between the two. Other Apple platforms
    /// throw ``/StashCore/StashError/Code/permissionDenied`` instead.
    ///
    /// - parameters:
    ///   - service: Names the vault, typically the app's identifier. A safe folder name.
    ///   - accessGroup: Shares the vault with every app of the group (a Keychain access group).
    ///   - accessibility: When the Keychain lets the entries be read (ignored on Linux).
    /// - throws: ``/StashCore/StashError/Code/invalidName`` for a bad service or group name. Its reads
    ///   and writes throw ``/StashCore/StashError/Code/locked`` while the Keychain is locked (the device
    ///   is, and `accessibility` does not allow reading now).
    public convenience init(service: String, accessGroup: String? = nil, accessibility: Accessibility = .afterFirstUnlock) throws {
        try Vault.validate(service: service, accessGroup: accessGroup)
        if let calls = Vault.platformKeychain {
            let storage = Vault.keychainStorage(service: service, accessGroup: accessGroup, accessibility: accessibility, calls: calls)
            self.init(service: service, accessGroup: accessGroup, storage: storage)
        } else {
            try self.init(service: service, accessGroup: accessGroup, keyring: Keyring(), key: .keyFile())
        }
    }

    /// A vault kept in an encrypted file of `keyring`, on any platform.
    ///
    /// ```swift
    /// let keyring = Keyring(folder: testFolder.appendingPathComponent("keyring"))
    /// let vault = try Vault(service: "notes", keyring: keyring, key: .passphrase("correct horse"))
    /// ```
    ///
    /// Nothing is created until the first write. The key is needed from the first read of an
    /// existing vault; a key file is created by the first write of a new one.
    ///
    /// - parameters:
    ///   - service: Names the vault file (`services/<service>.vault`). A safe folder name.
    ///   - accessGroup: Makes it a shared vault (`groups/<group>.vault`).
    ///   - keyring: Where the vault files are: `Keyring()` for the user's keyring.
    ///   - key: Where the key comes from (the keyring's master key file by default).
    /// - throws: ``/StashCore/StashError/Code/invalidName`` for a bad service or group name,
    ///   ``/StashCore/StashError/Code/unsupportedValue`` for out-of-bounds scrypt costs.
    public convenience init(service: String, accessGroup: String? = nil, keyring: Keyring, key: VaultKey = .keyFile()) throws {
        try Vault.validate(service: service, accessGroup: accessGroup)
        let storage = try EncryptedFileStorage(keyring: keyring, service: service, accessGroup: accessGroup, key: key)
        self.init(service: service, accessGroup: accessGroup, storage: storage)
    }

    init(service: String, accessGroup: String?, storage: any VaultStorage) {
        self.service = service
        self.accessGroup = accessGroup
        self.storage = storage
        self.watch = VaultWatch(file: { storage.file })
    }

    /// The encrypted file of a file vault (`nil` for the Keychain). It may not exist yet.
    public var file: URL? { storage.file }

    // MARK: Data

    /// The bytes stored under `key`, or `nil`.
    ///
    /// ```swift
    /// let secret = try vault.data(forKey: "signing-key")
    /// ```
    ///
    /// - throws: ``/StashCore/StashError/Code/invalidKey``, ``StashCore/StashError/Code/wrongPassphrase``,
    ///   ``StashCore/StashError/Code/wrongKey``, ``StashCore/StashError/Code/tampered``,
    ///   ``/StashCore/StashError/Code/truncatedFile``, ``StashCore/StashError/Code/insecureKeyFile``,
    ///   ``StashCore/StashError/Code/keyUnavailable``, or a file or Keychain error.
    public func data(forKey key: String) throws -> Data? {
        try storage.data(forKey: Vault.storedKey(key))
    }

    /// Stores `data` under `key`, replacing what was there; `nil` removes the entry.
    ///
    /// ```swift
    /// try vault.set(Data([1, 2, 3]), forKey: "signing-key")
    /// ```
    ///
    /// - throws: The errors of ``data(forKey:)``; nothing is written when one is thrown.
    public func set(_ data: Data?, forKey key: String) throws {
        let key = try Vault.storedKey(key)
        if let data {
            try storage.set(data, forKey: key)
        } else {
            try storage.removeValue(forKey: key)
        }
        watch.changed()
    }

    /// Removes the entry under `key`. Removing what is not there is not an error.
    ///
    /// ```swift
    /// try vault.removeValue(forKey: "api-token")
    /// ```
    public func removeValue(forKey key: String) throws {
        try storage.removeValue(forKey: Vault.storedKey(key))
        watch.changed()
    }

    /// The names of every entry, sorted.
    ///
    /// ```swift
    /// for name in try vault.allKeys { print(name) }
    /// ```
    public var allKeys: [String] {
        get throws { try storage.allKeys() }
    }

    /// Removes every entry of this vault (a shared vault: of the whole group).
    ///
    /// ```swift
    /// try vault.removeAll()   // sign out
    /// ```
    public func removeAll() throws {
        try storage.removeAll()
        watch.changed()
    }

    /// Re-encrypts a file vault under a new key in one atomic step, and uses that key from
    /// now on.
    ///
    /// ```swift
    /// try vault.rotate(to: .passphrase(newPassphrase))
    /// try vault.rotate(to: .keyFile(keyring.folder.appendingPathComponent("2026.key")))
    /// ```
    ///
    /// Every entry is decrypted with the current key, sealed again under the new key with a
    /// fresh salt, and the file is replaced by one atomic write: a crash leaves the vault
    /// whole under the old key or whole under the new one. Other `Vault` instances on the
    /// same file (other processes) must be opened again with the new key.
    ///
    /// - throws: ``StashCore/StashError/Code/notSupported`` for a Keychain vault; the errors of
    ///   ``data(forKey:)`` when the current key does not open the vault (nothing changes).
    public func rotate(to key: VaultKey) throws {
        try storage.rotate(to: key)
    }

    // MARK: Validation

    static func validate(service: String, accessGroup: String?) throws {
        for (name, what) in [(service, "service"), (accessGroup, "access group")] {
            guard let name else { continue }
            try Sandbox.validate(name: name, what: what)
            // Room for the ".vault.lock" suffix within a 255-byte file name.
            guard name.utf8.count <= 240 else {
                throw StashError(.invalidName, "\(what) is longer than 240 bytes", key: name)
            }
        }
    }

    /// The form under which an entry name is stored: its NFC normalization, so that
    /// canonically equivalent names (`"café"` composed or decomposed) are one entry, as
    /// Swift's `==` says they are.
    ///
    /// - throws: `.invalidKey` for an empty name, a name over 1024 bytes, or one holding NUL.
    static func storedKey(_ key: String) throws -> String {
        let stored = try StoredKey.normalized(key)
        guard !stored.isEmpty, stored.utf8.count <= 1024 else {
            throw StashError(.invalidKey, "entry names are 1 to 1024 bytes of UTF-8", key: StoredKey.printable(key))
        }
        return stored
    }
}
