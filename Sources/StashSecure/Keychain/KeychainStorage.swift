import Foundation
import StashCore

/// A vault kept as Keychain generic passwords: service = the vault's service (or its access
/// group for a shared vault, so that every member sees the same entries), account = the entry
/// name, data = the encoded value.
///
/// It builds the queries and reads the answers; the Security calls themselves go through
/// ``KeychainCalls`` (``SecurityFrameworkCalls`` on Apple platforms, a fake in the Linux tests).
final class KeychainStorage: VaultStorage {
    let service: String
    let accessGroup: String?
    let accessibility: Vault.Accessibility
    let calls: any KeychainCalls

    var file: URL? { nil }

    init(service: String, accessGroup: String?, accessibility: Vault.Accessibility, calls: any KeychainCalls) {
        self.service = service
        self.accessGroup = accessGroup
        self.accessibility = accessibility
        self.calls = calls
    }

    func data(forKey key: String) throws -> Data? {
        var query = itemQuery(key)
        query[.returnData] = .bool(true)
        query[.returnAttributes] = .bool(true)
        query[.matchLimit] = .string(KeychainAttributes.matchLimitOne)
        let answer = calls.copyMatching(query)
        if answer.status == KeychainStatus.itemNotFound { return nil }
        try check(answer.status, "read", key: key)
        return answer.items.first?.data
    }

    func set(_ data: Data, forKey key: String) throws {
        let query = itemQuery(key)
        // Update, add, and update again when another writer's first write added it in between.
        let changes = KeychainAttributes([.valueData: .data(data), .accessible: .string(accessibility.keychainValue)])
        let outcome = KeychainUpsert.store(
            update: { calls.update(query, to: changes) },
            add: { calls.add(query.merging(changes)) }
        )
        try check(outcome.status, outcome.action, key: key)
    }

    func removeValue(forKey key: String) throws {
        let status = calls.delete(itemQuery(key))
        if status != KeychainStatus.itemNotFound { try check(status, "delete", key: key) }
    }

    func allKeys() throws -> [String] {
        var query = serviceQuery()
        query[.returnAttributes] = .bool(true)
        query[.matchLimit] = .string(KeychainAttributes.matchLimitAll)
        let answer = calls.copyMatching(query)
        if answer.status == KeychainStatus.itemNotFound { return [] }
        try check(answer.status, "list", key: nil)
        return answer.items.compactMap(\.account).sorted()
    }

    func removeAll() throws {
        let status = calls.delete(serviceQuery())
        if status != KeychainStatus.itemNotFound { try check(status, "delete all", key: nil) }
    }

    func rotate(to key: VaultKey) throws {
        throw StashError(.notSupported, "the Keychain manages its own keys; only file vaults rotate")
    }

    /// Every item of this vault.
    func serviceQuery() -> KeychainAttributes {
        var query = KeychainAttributes([
            .itemClass: .string(KeychainAttributes.genericPassword),
            .service: .string(accessGroup ?? service),
            // The data protection keychain is the one where access groups work on macOS too.
            .dataProtectionKeychain: .bool(true),
        ])
        if let accessGroup { query[.accessGroup] = .string(accessGroup) }
        return query
    }

    /// The item of one entry.
    func itemQuery(_ key: String) -> KeychainAttributes {
        var query = serviceQuery()
        query[.account] = .string(key)
        return query
    }

    private func check(_ status: Int32, _ action: String, key: String?) throws {
        if let error = KeychainStatus.error(status, action, key: key) { throw error }
    }
}
