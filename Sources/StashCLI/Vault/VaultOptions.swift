import ArgumentParser
import Foundation
import Stash

/// What every `stash vault` command shares: which vault, where, and with which key.
struct VaultOptions: ParsableArguments {
    @Argument(help: "The service the entries belong to, such as an app identifier.")
    var service: String

    @Option(name: .long, help: "Use the shared vault of this access group.")
    var group: String?

    @Option(name: .long, help: "Keep the keyring under DIR/keyrings/stash instead of $XDG_DATA_HOME/keyrings/stash (for tests).")
    var root: String?

    @Flag(name: .long, help: "Read a passphrase from the first line of stdin (before the value, for `set`).")
    var passphraseStdin = false

    @Flag(name: .long, help: "Take the key from $STASH_VAULT_KEY (base64 of 32 bytes) instead of the master key file.")
    var keyFromEnv = false

    @Option(name: .long, help: "scrypt cost log2(N) when a passphrase creates or rotates a vault.")
    var scryptLog2n: UInt8 = ScryptCost.default.log2N

    /// The environment variable a passphrase is read from when `--passphrase-stdin` is not given.
    static let passphraseVariable = "STASH_VAULT_PASSPHRASE"

    func validate() throws {
        if passphraseStdin && keyFromEnv {
            throw ValidationError("--passphrase-stdin and --key-from-env exclude each other")
        }
    }

    /// Opens the vault. `input` is stdin; a passphrase line is taken off its front.
    func vault(input: inout Data) throws -> Vault {
        let environment = ProcessInfo.processInfo.environment
        let key: VaultKey?
        if passphraseStdin {
            let line = input.firstIndex(of: UInt8(ascii: "\n")) ?? input.endIndex
            let passphrase = String(decoding: input[input.startIndex..<line], as: UTF8.self)
            input = line < input.endIndex ? Data(input[input.index(after: line)...]) : Data()
            key = .passphrase(passphrase, cost: cost)
        } else if let passphrase = environment[VaultOptions.passphraseVariable] {
            key = .passphrase(passphrase, cost: cost)
        } else if keyFromEnv {
            key = .environment()
        } else {
            key = nil
        }
        if let root {
            let keyring = Keyring(folder: URL(fileURLWithPath: root, isDirectory: true).appendingPathComponent("keyrings/stash", isDirectory: true))
            return try Vault(service: service, accessGroup: group, keyring: keyring, key: key ?? .keyFile())
        }
        if let key {
            return try Vault(service: service, accessGroup: group, keyring: Keyring(), key: key)
        }
        return try Vault(service: service, accessGroup: group)
    }

    var cost: ScryptCost {
        var cost = ScryptCost.default
        cost.log2N = scryptLog2n
        return cost
    }

    /// Everything on stdin when the command needs it; stdin is left alone otherwise.
    static func readInput(needed: Bool) -> Data {
        needed ? FileHandle.standardInput.readDataToEndOfFile() : Data()
    }
}
