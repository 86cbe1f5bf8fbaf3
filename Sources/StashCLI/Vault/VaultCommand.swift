import ArgumentParser
import Foundation
import Stash

/// `stash vault`: secrets in the platform's vault (the Keychain, or an encrypted file in
/// `$XDG_DATA_HOME/keyrings/stash`). Secret values travel on stdin, never in arguments, which
/// other users can see in the process list.
struct VaultCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vault",
        abstract: "Store, read, list and delete secrets (values on stdin, never in arguments).",
        discussion: """
            Keys: by default the keyring's master key file (created on first use, mode 0600). \
            A passphrase comes from $STASH_VAULT_PASSPHRASE or, with --passphrase-stdin, from the \
            first line of stdin. --key-from-env takes the key from $STASH_VAULT_KEY (base64 of 32 bytes).

              printf 's3cr3t' | stash vault set com.example.app api-token
              stash vault get com.example.app api-token
              stash vault list com.example.app --group TEAM.shared
            """,
        subcommands: [SetCommand.self, GetCommand.self, DeleteCommand.self, ListCommand.self]
    )

    struct SetCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Store the value read from stdin (one trailing newline is dropped)."
        )
        @OptionGroup var options: VaultOptions
        @Argument(help: "The entry name.") var key: String

        func run() async throws {
            var input = VaultOptions.readInput(needed: true)
            let vault = try options.vault(input: &input)
            if input.last == UInt8(ascii: "\n") { input.removeLast() }
            try vault.set(input, forKey: key)
        }
    }

    struct GetCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "get", abstract: "Print the value of an entry.")
        @OptionGroup var options: VaultOptions
        @Argument(help: "The entry name.") var key: String

        func run() async throws {
            var input = VaultOptions.readInput(needed: options.passphraseStdin)
            let vault = try options.vault(input: &input)
            guard var value = try vault.data(forKey: key) else {
                throw StashError(.notFound, "no such entry in \(options.service)", key: key)
            }
            if isatty(STDOUT_FILENO) != 0 { value.append(UInt8(ascii: "\n")) }
            FileHandle.standardOutput.write(value)
        }
    }

    struct DeleteCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "delete", abstract: "Remove an entry (removing a missing entry is not an error).")
        @OptionGroup var options: VaultOptions
        @Argument(help: "The entry name.") var key: String

        func run() async throws {
            var input = VaultOptions.readInput(needed: options.passphraseStdin)
            try options.vault(input: &input).removeValue(forKey: key)
        }
    }

    struct ListCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "Print the entry names, one a line.")
        @OptionGroup var options: VaultOptions

        func run() async throws {
            var input = VaultOptions.readInput(needed: options.passphraseStdin)
            for name in try options.vault(input: &input).allKeys { print(name) }
        }
    }
}
