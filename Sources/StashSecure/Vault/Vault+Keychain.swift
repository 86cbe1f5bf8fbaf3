import Foundation
import Logging
import StashCore

extension Vault {
    /// The Security framework's Keychain on Apple platforms; `nil` elsewhere, where
    /// ``init(service:accessGroup:accessibility:)`` opens a file vault.
    static var platformKeychain: (any KeychainCalls)? {
        #if canImport(Security)
        return SecurityFrameworkCalls()
        #else
        return nil
        #endif
    }

    /// Whether a Keychain vault moves to an encrypted file vault when the Keychain refuses the
    /// process for a missing entitlement (``KeychainFallbackStorage``): on macOS, where
    /// unsigned tools (`swift test`, `stash vault`) cannot use the data protection keychain.
    static var keychainFallsBackToFile: Bool {
        #if os(macOS)
        return true
        #else
        return false
        #endif
    }

    /// The storage of ``init(service:accessGroup:accessibility:)`` on Apple platforms: the
    /// Keychain through `calls`, and where `fallsBackToFile`, the vault file of `service` (or
    /// `accessGroup`) in `keyring` under its master key file once the Keychain refuses for a
    /// missing entitlement, said once in `logger`.
    static func keychainStorage(
        service: String, accessGroup: String?, accessibility: Accessibility, calls: any KeychainCalls,
        fallsBackToFile: Bool = Vault.keychainFallsBackToFile, keyring: Keyring = Keyring(), logger: Logger = Logger(label: "stash.vault")
    ) -> any VaultStorage {
        let keychain = KeychainStorage(service: service, accessGroup: accessGroup, accessibility: accessibility, calls: calls)
        guard fallsBackToFile else { return keychain }
        return KeychainFallbackStorage(keychain: keychain, logger: logger) {
            try EncryptedFileStorage(keyring: keyring, service: service, accessGroup: accessGroup, key: .keyFile())
        }
    }
}
