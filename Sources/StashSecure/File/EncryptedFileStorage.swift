import Crypto
import _CryptoExtras
import Foundation
import StashCore

/// A vault kept in one encrypted file of a ``Keyring``.
///
/// Every change is a read-modify-write of the whole file under an exclusive ``FileLock``,
/// ending in one atomic ``FileStore/write(_:to:permissions:durability:)``: concurrent writers
/// in several processes take turns and lose nothing, and a crash leaves the previous file or
/// the new one. A file that cannot be read (wrong key, tampered, truncated) is never written.
final class EncryptedFileStorage: VaultStorage {
    let url: URL
    let keyring: Keyring
    /// What names are bound to: `service:<name>` or `group:<name>`.
    let scope: String
    private let state: LockedValue<State>

    private struct State {
        var key: VaultKey
        /// scrypt is slow on purpose: its result is kept per salt and cost for the current
        /// passphrase, and dropped when the key changes.
        var derived: [Data: SymmetricKey] = [:]
    }

    var file: URL? { url }

    init(keyring: Keyring, service: String, accessGroup: String?, key: VaultKey) throws {
        if case .passphrase(_, let cost) = key, !cost.isReasonable {
            throw StashError(.unsupportedValue, "scrypt cost out of bounds: log2N 1…24, r 1…32, p 1…16")
        }
        self.keyring = keyring
        self.url = keyring.vaultFile(service: service, accessGroup: accessGroup)
        self.scope = accessGroup.map { "group:\($0)" } ?? "service:\(service)"
        self.state = LockedValue(State(key: key))
    }

    // MARK: Reading

    func data(forKey key: String) throws -> Data? {
        try load()?.entries[key]
    }

    func allKeys() throws -> [String] {
        try load()?.entries.keys.sorted() ?? []
    }

    /// The header and entries of the file, or `nil` when there is no vault yet.
    private func load() throws -> (header: VaultHeader, entries: [String: Data])? {
        let bytes: Data
        do {
            bytes = try FileStore.read(url)
        } catch StashError.Code.notFound {
            return nil
        }
        let header = try VaultFileFormat.readHeader(bytes, path: url.path)
        let key = state.withLock { $0.key }
        let keys = try keys(for: header, key: key, create: false)
        let wrongKey: StashError.Code = header.kind == .passphrase ? .wrongPassphrase : .wrongKey
        let entries = try VaultFileFormat.decode(bytes, header: header, keys: keys, scope: scope, path: url.path, wrongKey: wrongKey)
        return (header, entries)
    }

    // MARK: Writing

    func set(_ data: Data, forKey key: String) throws {
        try modify { $0[key] = data }
    }

    func removeValue(forKey key: String) throws {
        try modify { $0[key] = nil }
    }

    func removeAll() throws {
        try modify { $0.removeAll() }
    }

    func rotate(to newKey: VaultKey) throws {
        if case .passphrase(_, let cost) = newKey, !cost.isReasonable {
            throw StashError(.unsupportedValue, "scrypt cost out of bounds: log2N 1…24, r 1…32, p 1…16")
        }
        try withFileLock {
            if let current = try load() {
                let header = VaultHeader(for: newKey)
                let keys = try keys(for: header, key: newKey, create: true)
                let bytes = try VaultFileFormat.encode(current.entries, header: header, keys: keys, scope: scope)
                try FileStore.write(bytes, to: url, permissions: 0o600)
            }
            state.withLock { $0 = State(key: newKey) }
        }
    }

    /// Reads (or starts) the vault, applies `change` and writes the result in one atomic step.
    private func modify(_ change: (inout [String: Data]) -> Void) throws {
        try withFileLock {
            let key = state.withLock { $0.key }
            let current = try load()
            var entries = current?.entries ?? [:]
            let before = entries
            change(&entries)
            if current != nil && entries == before { return }
            if current == nil && entries.isEmpty { return }
            // An existing vault keeps its salt and key; a new one gets both here.
            let header = current?.header ?? VaultHeader(for: key)
            let keys = try keys(for: header, key: key, create: current == nil)
            let bytes = try VaultFileFormat.encode(entries, header: header, keys: keys, scope: scope)
            try FileStore.write(bytes, to: url, permissions: 0o600)
        }
    }

    private func withFileLock<T>(_ body: () throws -> T) throws -> T {
        let folder = url.deletingLastPathComponent()
        try FileStore.createFolder(keyring.folder)
        try FileStore.createFolder(folder)
        let lock = try FileLock(url: folder.appendingPathComponent(url.lastPathComponent + ".lock"))
        return try lock.withLock(.exclusive, body)
    }

    // MARK: Keys

    /// The keys of a vault with `header`, from `key`.
    private func keys(for header: VaultHeader, key: VaultKey, create: Bool) throws -> VaultKeys {
        let master: SymmetricKey
        switch (header.kind, key) {
        case (.key, .keyFile(let file)):
            master = try MasterKeyFile.load(file ?? keyring.masterKeyFile, create: create)
        case (.key, .environment(let variable, let values)):
            guard let text = values[variable] else {
                throw StashError(.keyUnavailable, "$\(variable) is not set", path: url.path)
            }
            guard let parsed = MasterKeyFile.parse(text) else {
                throw StashError(.keyUnavailable, "$\(variable) is not the base64 of 32 bytes", path: url.path)
            }
            master = parsed
        case (.passphrase, .passphrase(let passphrase, _)):
            master = try derive(passphrase: passphrase, header: header)
        case (.key, .passphrase):
            throw StashError(.wrongKey, "this vault is locked by a key, not a passphrase", path: url.path)
        case (.passphrase, _):
            throw StashError(.wrongKey, "this vault is locked by a passphrase, not a key", path: url.path)
        }
        return VaultKeys(master: master, salt: header.salt)
    }

    private func derive(passphrase: String, header: VaultHeader) throws -> SymmetricKey {
        var writer = BinaryWriter()
        writer.write(contentsOf: header.salt)
        writer.write(header.cost.log2N)
        writer.write(header.cost.r, .bigEndian)
        writer.write(header.cost.p, .bigEndian)
        let cacheKey = writer.data
        if let cached = state.withLock({ $0.derived[cacheKey] }) { return cached }
        let derived = try KDF.Scrypt.deriveKey(
            from: Data(passphrase.utf8),
            salt: header.salt,
            outputByteCount: 32,
            rounds: 1 << Int(header.cost.log2N),
            blockSize: Int(header.cost.r),
            parallelism: Int(header.cost.p)
        )
        state.withLock { state in
            if case .passphrase(let current, _) = state.key, current == passphrase {
                state.derived[cacheKey] = derived
            }
        }
        return derived
    }
}
