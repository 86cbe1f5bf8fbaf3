import Foundation
import Logging
import StashCore

/// A Keychain vault that moves to an encrypted file vault when the process lacks the
/// entitlement the Keychain query needs (`errSecMissingEntitlement`).
///
/// On macOS the data protection keychain (`kSecUseDataProtectionKeychain`, the one where
/// access groups work) answers only signed apps with a keychain entitlement: `swift test`, the
/// `stash vault` command and any unsigned tool get `errSecMissingEntitlement`. Such a process
/// keeps its entries where Linux does, in the user's ``Keyring`` under its master key file,
/// instead of failing; the first refused call says so once in the log (`stash.vault`, warning)
/// and every later call of this vault goes to the file. Entries are not moved between the two:
/// a tool that is signed later starts from an empty Keychain vault.
///
/// Other platforms (``Vault/keychainFallsBackToFile`` is false) never fall back: there a missing
/// entitlement is the app's misconfiguration, reported as ``/StashCore/StashError/Code/permissionDenied``.
final class KeychainFallbackStorage: VaultStorage {
    let keychain: KeychainStorage
    private let openFile: @Sendable () throws -> any VaultStorage
    private let logger: Logger
    /// The file vault, once the Keychain has refused this process.
    private let fallback = LockedValue<(any VaultStorage)?>(nil)

    init(keychain: KeychainStorage, logger: Logger, openFile: @escaping @Sendable () throws -> any VaultStorage) {
        self.keychain = keychain
        self.logger = logger
        self.openFile = openFile
    }

    /// The file vault in use, `nil` while the Keychain is.
    var fileStorage: (any VaultStorage)? { fallback.withLock { $0 } }

    var file: URL? { fileStorage?.file }

    func data(forKey key: String) throws -> Data? { try run { try $0.data(forKey: key) } }
    func set(_ data: Data, forKey key: String) throws { try run { try $0.set(data, forKey: key) } }
    func removeValue(forKey key: String) throws { try run { try $0.removeValue(forKey: key) } }
    func allKeys() throws -> [String] { try run { try $0.allKeys() } }
    func removeAll() throws { try run { try $0.removeAll() } }
    func rotate(to key: VaultKey) throws { try run { try $0.rotate(to: key) } }

    /// Runs `body` on the Keychain, or on the file vault once the Keychain has refused for a
    /// missing entitlement (then `body` runs again, on the file).
    private func run<T>(_ body: (any VaultStorage) throws -> T) throws -> T {
        if let file = fileStorage { return try body(file) }
        do {
            return try body(keychain)
        } catch let refusal as StashError where refusal.code == .permissionDenied {
            // KeychainStatus maps only errSecMissingEntitlement to permissionDenied.
            return try body(switchToFile(after: refusal))
        }
    }

    private func switchToFile(after refusal: StashError) throws -> any VaultStorage {
        try fallback.withLock { current in
            if let current { return current }
            let file = try openFile()
            current = file
            logger.warning(
                "the Keychain refused this process for a missing entitlement; this vault uses an encrypted file instead",
                metadata: [
                    "service": "\(keychain.service)", "accessGroup": "\(keychain.accessGroup ?? "-")",
                    "file": "\(file.file?.path ?? "-")", "reason": "\(refusal.reason)",
                ]
            )
            return file
        }
    }
}
