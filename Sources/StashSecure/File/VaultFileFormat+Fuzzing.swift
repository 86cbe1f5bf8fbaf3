import Crypto
package import Foundation
import StashCore

/// The vault file reader, reachable by `stash-fuzz` (libFuzzer) and its regression replays:
/// arbitrary bytes go through every check a real load makes (header, digest, key check,
/// MAC, records) under a fixed key. It must throw typed errors, never crash.
package enum VaultFileFuzzing {
    /// The master key the fuzzer's seed files are sealed with.
    private static let master = SymmetricKey(data: [UInt8](repeating: 7, count: 32))

    package static func run(_ bytes: UnsafeRawBufferPointer) {
        let data = Data(bytes)
        guard let header = try? VaultFileFormat.readHeader(data, path: "fuzz") else { return }
        let keys = VaultKeys(master: master, salt: header.salt)
        _ = try? VaultFileFormat.decode(data, header: header, keys: keys, scope: "fuzz", path: "fuzz", wrongKey: .wrongKey)
    }

    /// A valid vault file under the fuzzer's key, for the seed corpus.
    package static func seed(entries: [String: Data]) throws -> Data {
        let header = VaultHeader(for: .keyFile())
        return try VaultFileFormat.encode(entries, header: header, keys: VaultKeys(master: master, salt: header.salt), scope: "fuzz")
    }
}
