import Crypto
import Foundation
import StashCore

/// The master key file of key-file vaults: 32 random bytes as one line of base64, owner-only.
enum MasterKeyFile {
    /// Reads the key at `url`, creating it first when it is missing and `create` is set.
    ///
    /// Creation is race-free between processes: the key is written to a private temporary
    /// file and hard-linked into place, so exactly one key wins and everyone reads that one.
    static func load(_ url: URL, create: Bool) throws -> SymmetricKey {
        if create && !FileStore.exists(url) {
            try createIfMissing(url)
        }
        var info = stat()
        guard stat(url.path, &info) == 0 else {
            if errno == ENOENT {
                throw StashError(.keyUnavailable, "the master key file is missing; the vault cannot be opened without it", path: url.path)
            }
            throw StashError.posix("stat key file", path: url.path)
        }
        if info.st_uid != geteuid() {
            throw StashError(.insecureKeyFile, "the key file belongs to another user", path: url.path)
        }
        if (info.st_mode & 0o077) != 0 {
            let mode = String(info.st_mode & 0o777, radix: 8)
            throw StashError(.insecureKeyFile, "the key file has mode \(mode); it must be readable by its owner only (chmod 600)", path: url.path)
        }
        let text = String(decoding: try FileStore.read(url), as: UTF8.self)
        guard let key = parse(text) else {
            throw StashError(.keyUnavailable, "the key file does not hold the base64 of 32 bytes", path: url.path)
        }
        return key
    }

    /// Parses the base64 of exactly 32 bytes (surrounding white space allowed).
    static func parse(_ text: String) -> SymmetricKey? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let bytes = Data(base64Encoded: trimmed), bytes.count == 32 else { return nil }
        return SymmetricKey(data: bytes)
    }

    private static func createIfMissing(_ url: URL) throws {
        let folder = url.deletingLastPathComponent()
        try FileStore.createFolder(folder)
        let key = SymmetricKey(size: .bits256)
        let text = key.withUnsafeBytes { Data($0).base64EncodedString() } + "\n"
        let staging = folder.appendingPathComponent(".\(url.lastPathComponent).\(UInt64.random(in: 0...UInt64.max)).new")
        try FileStore.write(Data(text.utf8), to: staging, permissions: 0o600)
        defer { SystemCalls.unlink(staging.path) }
        if SystemCalls.link(staging.path, url.path) != 0 && errno != EEXIST {
            throw StashError.posix("install key file", path: url.path)
        }
        try FileStore.syncFolder(folder.path)
    }
}
