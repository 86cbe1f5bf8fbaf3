#if canImport(Security)
import Foundation
import Security

/// The Security framework behind ``KeychainCalls``: the only Keychain code that Linux does not
/// compile, so it holds no decision.
struct SecurityFrameworkCalls: KeychainCalls {
    func add(_ item: KeychainAttributes) -> Int32 { SecItemAdd(item.bridged as CFDictionary, nil) }

    func update(_ query: KeychainAttributes, to changes: KeychainAttributes) -> Int32 {
        SecItemUpdate(query.bridged as CFDictionary, changes.bridged as CFDictionary)
    }

    func delete(_ query: KeychainAttributes) -> Int32 { SecItemDelete(query.bridged as CFDictionary) }

    func copyMatching(_ query: KeychainAttributes) -> KeychainAnswer {
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query.bridged as CFDictionary, &result)
        let items = result as? [[String: Any]] ?? (result as? [String: Any]).map { [$0] } ?? []
        return KeychainAnswer(status: status, items: items.map(KeychainAttributes.init(bridged:)))
    }
}
#endif
