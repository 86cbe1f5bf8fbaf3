import Foundation
import StashCore
import StashSecure
import StashTestSupport

/// A keyring in a fresh temporary folder, and cheap scrypt costs so that tests stay fast.
struct VaultFixture {
    let folder = TemporaryFolder("secure")
    var keyring: Keyring { Keyring(folder: folder.url.appendingPathComponent("keyring", isDirectory: true)) }

    static let fastCost = ScryptCost(log2N: 4, r: 1, p: 1)

    func vault(_ service: String = "com.example.app", group: String? = nil, key: VaultKey = .keyFile()) throws -> Vault {
        try Vault(service: service, accessGroup: group, keyring: keyring, key: key)
    }

    func passphraseVault(_ passphrase: String, service: String = "com.example.app") throws -> Vault {
        try vault(service, key: .passphrase(passphrase, cost: VaultFixture.fastCost))
    }

    func fileBytes(of vault: Vault) throws -> Data {
        try FileStore.read(vault.file!)
    }

    func mode(of url: URL) throws -> Int {
        var info = stat()
        guard stat(url.path, &info) == 0 else { throw StashError(.notFound, "stat failed", path: url.path) }
        return Int(info.st_mode & 0o777)
    }
}

/// The code of the `StashError` that `body` throws, or `nil` when it does not throw.
func errorCode(_ body: () throws -> Void) -> StashError.Code? {
    do {
        try body()
        return nil
    } catch let error as StashError {
        return error.code
    } catch {
        return StashError.Code(rawValue: "not a StashError: \(error)")
    }
}
