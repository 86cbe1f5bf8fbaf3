import ArgumentParser
import Foundation
import Stash

/// `stash defaults`: read and write preferences suites, modelled on macOS `defaults`.
struct DefaultsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "defaults",
        abstract: "Read, write, delete, list, export and import preferences suites.",
        discussion: """
        Suites are the <suite>.stashprefs logs in the sandbox's preferences folder.
        Put --app / --root before the suite name.

        Examples:
          stash defaults write com.example.app volume -float 0.8
          stash defaults write com.example.app recent -array a b c
          stash defaults read com.example.app volume
          stash defaults export com.example.app backup.plist
        """,
        subcommands: [
            DefaultsRead.self, DefaultsWrite.self, DefaultsDelete.self,
            DefaultsList.self, DefaultsExport.self, DefaultsImport.self,
        ]
    )
}

extension SandboxOptions {
    /// Opens `suite` in this sandbox.
    func preferences(_ suite: String) throws -> Preferences {
        try Preferences(suite: suite, sandbox: try sandbox())
    }

    /// The names of the suites in this sandbox's preferences folder, sorted.
    func suites() throws -> [String] {
        let folder = try sandbox().preferences
        guard FileStore.isFolder(folder) else { return [] }
        let suffix = "." + Preferences.fileExtension
        return try FileStore.list(folder).filter { $0.hasSuffix(suffix) }.map { String($0.dropLast(suffix.count)) }
    }
}

struct DefaultsRead: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "read",
        abstract: "Print a suite's values, one value, or (with no suite) every suite."
    )

    @OptionGroup var sandbox: SandboxOptions
    @Argument(help: "The suite.") var suite: String?
    @Argument(help: "The key.") var key: String?

    func run() async throws {
        guard let suite else {
            for name in try sandbox.suites() {
                print("\(name) = \(DefaultsFormat.describe(.dictionary(try sandbox.preferences(name).storedValues())))")
            }
            return
        }
        let prefs = try sandbox.preferences(suite)
        if let key {
            guard let value = prefs.object(forKey: key) else {
                throw StashError(.notFound, "no such key in suite '\(suite)'", key: key)
            }
            print(DefaultsFormat.describe(value))
        } else {
            print(DefaultsFormat.describe(.dictionary(prefs.storedValues())))
        }
    }
}

struct DefaultsWrite: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "write",
        abstract: "Store a value: write SUITE KEY [-string|-int|-float|-bool|-date|-data|-array|-dict|-json] VALUE…",
        discussion: """
        Without a type flag the value is a string. -date takes ISO 8601 (2024-05-01T12:00:00Z),
        -data hexadecimal, -bool true/false/yes/no/1/0, -array one value per argument (strings),
        -dict alternating keys and values (strings), -json any JSON text (stored as JSON).
        """
    )

    @OptionGroup var sandbox: SandboxOptions
    @Argument(help: "The suite.") var suite: String
    @Argument(help: "The key.") var key: String
    @Argument(parsing: .captureForPassthrough, help: "An optional type flag, then the value(s).")
    var value: [String] = []

    func run() async throws {
        let stored = try DefaultsFormat.parse(value)
        try sandbox.preferences(suite).set(stored, forKey: key)
    }
}

struct DefaultsDelete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Remove one key, or every key of a suite (the file is compacted)."
    )

    @OptionGroup var sandbox: SandboxOptions
    @Argument(help: "The suite.") var suite: String
    @Argument(help: "The key (default: all keys).") var key: String?

    func run() async throws {
        let prefs = try sandbox.preferences(suite)
        if let key {
            guard prefs.contains(key) else { throw StashError(.notFound, "no such key in suite '\(suite)'", key: key) }
            try prefs.removeValue(forKey: key)
        } else {
            try prefs.removeAll()
            try prefs.compact()
        }
    }
}

struct DefaultsList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the suites of the sandbox.")

    @OptionGroup var sandbox: SandboxOptions

    func run() async throws {
        for name in try sandbox.suites() { print(name) }
    }
}

struct DefaultsExport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "export", abstract: "Write a suite to a plist file.")

    @OptionGroup var sandbox: SandboxOptions
    @Argument(help: "The suite.") var suite: String
    @Argument(help: "The plist file to write.") var file: String
    @Option(help: "xml, binary or json.") var format: String = "xml"

    func run() async throws {
        guard let format = PropertyListFormat(rawValue: format) else {
            throw ValidationError("unknown format '\(format)'; use xml, binary or json")
        }
        try sandbox.preferences(suite).exportPropertyList(to: URL(fileURLWithPath: file), format: format)
    }
}

struct DefaultsImport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Add every entry of a plist file (such as a UserDefaults plist) or of an MMKV file to a suite.",
        discussion: """
            stash defaults import settings ~/Library/Preferences/com.example.plist
            stash defaults import settings mmkv/settings --from mmkv --type volume=double --type muted=bool

            MMKV files do not store types: name them with --type KEY=TYPE (bool, integer,
            unsigned, float, double, string, data); other values are guessed.
            """
    )

    @OptionGroup var sandbox: SandboxOptions
    @Argument(help: "The suite.") var suite: String
    @Argument(help: "The file to read: a plist (XML, binary or JSON), or an MMKV file with its .crc beside it.") var file: String
    @Option(help: "plist or mmkv.") var from: String = "plist"
    @Option(name: .customLong("type"), help: "For MMKV: KEY=TYPE, the type of a key's value (repeatable).") var types: [String] = []

    func run() async throws {
        let url = URL(fileURLWithPath: file)
        let count: Int
        switch from {
        case "plist":
            guard types.isEmpty else { throw ValidationError("--type applies to --from mmkv only") }
            count = try sandbox.preferences(suite).importPropertyList(from: url)
        case "mmkv":
            count = try sandbox.preferences(suite).importMMKV(file: url, types: try mmkvTypes())
        default:
            throw ValidationError("unknown source '\(from)'; use plist or mmkv")
        }
        print("imported \(count) keys into \(suite)")
    }

    private func mmkvTypes() throws -> [String: Preferences.MMKVValueType] {
        let names: [String: Preferences.MMKVValueType] = [
            "bool": .bool, "integer": .integer, "unsigned": .unsignedInteger, "float": .float,
            "double": .double, "string": .string, "data": .data,
        ]
        var types: [String: Preferences.MMKVValueType] = [:]
        for pair in self.types {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let type = names[parts[1]] else {
                throw ValidationError("--type takes KEY=TYPE with TYPE one of \(names.keys.sorted().joined(separator: ", "))")
            }
            types[parts[0]] = type
        }
        return types
    }
}
