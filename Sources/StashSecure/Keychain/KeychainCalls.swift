/// The seam between a Keychain vault and the Security framework: the four `SecItem` calls,
/// each on a plain-Swift ``KeychainAttributes`` and answering an `OSStatus`
/// (``KeychainStatus``). ``SecurityFrameworkCalls`` makes the real calls on Apple platforms;
/// the tests' fake keychain answers the same status codes on Linux.
protocol KeychainCalls: Sendable {
    /// `SecItemAdd(item, nil)`.
    func add(_ item: KeychainAttributes) -> Int32
    /// `SecItemCopyMatching(query, &result)`: the status, and the found items' attributes.
    func copyMatching(_ query: KeychainAttributes) -> KeychainAnswer
    /// `SecItemUpdate(query, changes)`.
    func update(_ query: KeychainAttributes, to changes: KeychainAttributes) -> Int32
    /// `SecItemDelete(query)`.
    func delete(_ query: KeychainAttributes) -> Int32
}

/// What `SecItemCopyMatching` answered.
struct KeychainAnswer: Sendable {
    var status: Int32
    /// One item for a `kSecMatchLimitOne` query, every match for `kSecMatchLimitAll`.
    var items: [KeychainAttributes]
}
