#if canImport(Security)
import Foundation
import Security
import StashCore

/// A vault kept as Keychain generic passwords: service = the vault's service (or its access
/// group for a shared vault, so that every member sees the same entries), account = the entry
/// name, data = the encoded value.
final class KeychainStorage: VaultStorage {
    let service: String
    let accessGroup: String?
    let accessibility: Vault.Accessibility

    var file: URL? { nil }

    init(service: String, accessGroup: String?, accessibility: Vault.Accessibility) {
        self.service = service
        self.accessGroup = accessGroup
        self.accessibility = accessibility
    }

    func data(forKey key: String) throws -> Data? {
        var query = baseQuery()
        query[kSecAttrAccount as String] = key
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        if status == errSecItemNotFound { return nil }
        try check(status, "read", key: key)
        return result as? Data
    }

    func set(_ data: Data, forKey key: String) throws {
        var query = baseQuery()
        query[kSecAttrAccount as String] = key
        // Update, add, and update again when another writer's first write added it in between
        // (KeychainUpsert, whose decisions the Linux tests check).
        let changes: [String: Any] = [
            kSecValueData as String: data,
            kSecAttrAccessible as String: accessibilityValue,
        ]
        let addition = query.merging(changes) { _, new in new }
        let outcome = KeychainUpsert.store(
            update: { SecItemUpdate(query as CFDictionary, changes as CFDictionary) },
            add: { SecItemAdd(addition as CFDictionary, nil) }
        )
        try check(outcome.status, outcome.action, key: key)
    }

    func removeValue(forKey key: String) throws {
        var query = baseQuery()
        query[kSecAttrAccount as String] = key
        let status = SecItemDelete(query as CFDictionary)
        if status != errSecItemNotFound { try check(status, "delete", key: key) }
    }

    func allKeys() throws -> [String] {
        var query = baseQuery()
        query[kSecReturnAttributes as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitAll
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        if status == errSecItemNotFound { return [] }
        try check(status, "list", key: nil)
        let items = result as? [[String: Any]] ?? []
        return items.compactMap { $0[kSecAttrAccount as String] as? String }.sorted()
    }

    func removeAll() throws {
        let status = SecItemDelete(baseQuery() as CFDictionary)
        if status != errSecItemNotFound { try check(status, "delete all", key: nil) }
    }

    func rotate(to key: VaultKey) throws {
        throw StashError(.notSupported, "the Keychain manages its own keys; only file vaults rotate")
    }

    private func baseQuery() -> [String: Any] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: accessGroup ?? service,
            // The data protection keychain is the one where access groups work on macOS too.
            kSecUseDataProtectionKeychain as String: true,
        ]
        if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
        return query
    }

    private var accessibilityValue: CFString {
        switch accessibility {
        case .whenUnlocked: kSecAttrAccessibleWhenUnlocked
        case .afterFirstUnlock: kSecAttrAccessibleAfterFirstUnlock
        case .whenUnlockedThisDeviceOnly: kSecAttrAccessibleWhenUnlockedThisDeviceOnly
        case .afterFirstUnlockThisDeviceOnly: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        case .whenPasscodeSetThisDeviceOnly: kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly
        }
    }

    private func check(_ status: OSStatus, _ action: String, key: String?) throws {
        guard status != errSecSuccess else { return }
        let message = SecCopyErrorMessageString(status, nil) as String? ?? "OSStatus \(status)"
        let code: StashError.Code = status == errSecInteractionNotAllowed ? .locked : .keychain
        throw StashError(code, "\(action): \(message) (\(status))", key: key)
    }
}
#endif
