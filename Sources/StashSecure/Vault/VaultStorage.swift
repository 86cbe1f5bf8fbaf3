import Foundation

/// What a ``Vault`` stores its entries in: the Keychain or an encrypted file. Entry names are
/// validated and values encoded before they reach it.
protocol VaultStorage: Sendable {
    func data(forKey key: String) throws -> Data?
    func set(_ data: Data, forKey key: String) throws
    func removeValue(forKey key: String) throws
    func allKeys() throws -> [String]
    func removeAll() throws
    func rotate(to key: VaultKey) throws
    /// The file holding the entries, when there is one.
    var file: URL? { get }
}
