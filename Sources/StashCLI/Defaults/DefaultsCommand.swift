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
            try prefs.removeObject(forKey: key)
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
        abstract: "Add every entry of a plist file (such as a UserDefaults plist) to a suite."
    )

    @OptionGroup var sandbox: SandboxOptions
    @Argument(help: "The suite.") var suite: String
    @Argument(help: "The plist file to read (XML, binary or JSON).") var file: String

    func run() async throws {
        let count = try sandbox.preferences(suite).importPropertyList(from: URL(fileURLWithPath: file))
        print("imported \(count) keys into \(suite)")
    }
}
