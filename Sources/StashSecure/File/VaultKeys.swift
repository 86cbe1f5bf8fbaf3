import Crypto
import Foundation

/// The keys a vault file is sealed with, all derived with HKDF-SHA256 from one master key
/// and the vault's salt, so that a fresh salt (a rotation) changes every one of them.
struct VaultKeys: Sendable {
    /// Seals records (ChaChaPoly).
    let records: SymmetricKey
    /// Turns entry names into lookup ids (HMAC-SHA256), so names never appear in clear.
    let names: SymmetricKey
    /// Authenticates the whole file (HMAC-SHA256): no record can be dropped, reordered or
    /// brought back from an older copy of the file.
    let file: SymmetricKey
    /// Seals the key-check record, which tells a wrong key from a tampered file.
    let check: SymmetricKey

    init(master: SymmetricKey, salt: Data) {
        func derive(_ purpose: String) -> SymmetricKey {
            HKDF<Crypto.SHA256>.deriveKey(
                inputKeyMaterial: master,
                salt: salt,
                info: Data("stash.vault.v1.\(purpose)".utf8),
                outputByteCount: 32
            )
        }
        records = derive("records")
        names = derive("names")
        file = derive("file")
        check = derive("check")
    }

    /// The lookup id of an entry: an HMAC of its scope and name, stored instead of the name.
    func lookupID(scope: String, name: String) -> Data {
        var message = Data(scope.utf8)
        message.append(0)
        message.append(contentsOf: name.utf8)
        return Data(HMAC<Crypto.SHA256>.authenticationCode(for: message, using: names))
    }
}
