public import Foundation
public import StashCore

extension Preferences {
    /// Imports every entry of a property-list file (XML, binary or JSON), such as a plist
    /// that UserDefaults wrote, in one call. Existing keys that the file also has are
    /// overwritten; other keys stay.
    ///
    /// ```swift
    /// let count = try prefs.importPropertyList(from: Preferences.userDefaultsFile(suite: "com.example.app"))
    /// ```
    ///
    /// All entries are appended under one file lock, then flushed to the device.
    ///
    /// - returns: How many keys were imported.
    /// - throws: ``/StashCore/StashError/Code/notFound`` when the file is missing,
    ///   ``/StashCore/StashError/Code/corruptFile`` when it is not a property list,
    ///   ``/StashCore/StashError/Code/unsupportedValue`` when its top level is not a dictionary.
    ///   Nothing is imported then.
    @discardableResult
    public func importPropertyList(from file: URL) throws -> Int {
        let list = try PropertyList(data: try FileStore.read(file))
        guard case .dictionary(let entries) = list else {
            throw StashError(.unsupportedValue, "the property list's top level is not a dictionary", path: file.path)
        }
        let values = entries.sorted { $0.key < $1.key }.map { (key: $0.key, value: PreferenceValue($0.value)) }
        try run { engine in
            try engine.write(batch: values.map { ($0.key, $0.value, nil) })
            try engine.log?.sync(metadata: true)
        }
        return values.count
    }

    /// Adopts a UserDefaults suite: imports the plist Foundation keeps for `suite`.
    ///
    /// ```swift
    /// try Preferences.standard.importUserDefaults(suite: "com.example.app")
    /// ```
    ///
    /// - returns: How many keys were imported.
    @discardableResult
    public func importUserDefaults(
        suite: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> Int {
        try importPropertyList(from: Preferences.userDefaultsFile(suite: suite, environment: environment))
    }

    /// Writes the stored values (not defaults, not volatile values) to a property-list file,
    /// atomically and durably.
    ///
    /// ```swift
    /// try prefs.exportPropertyList(to: backup, format: .xml)
    /// ```
    ///
    /// URLs and UUIDs become strings, JSON values their text, since property lists have no
    /// such types.
    ///
    /// - throws: ``/StashCore/StashError`` when the file cannot be written; a previous file is then
    ///   left as it was.
    public func exportPropertyList(to file: URL, format: PropertyListFormat = .xml) throws {
        let list = PropertyList.dictionary(storedValues().mapValues(\.propertyList))
        try FileStore.write(try list.data(format: format), to: file)
    }

    /// Where Foundation's UserDefaults keeps the plist of `suite` on this platform:
    /// `$XDG_CONFIG_HOME/<suite>.plist` (`~/.config`) on Linux,
    /// `~/Library/Preferences/<suite>.plist` on Apple platforms.
    public static func userDefaultsFile(
        suite: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> URL {
        #if canImport(Darwin)
        let library = FileManager.default.urls(for: .libraryDirectory, in: .userDomainMask)[0]
        return library.appendingPathComponent("Preferences/\(suite).plist")
        #else
        return XDGDirectories(environment: environment).configHome.appendingPathComponent("\(suite).plist")
        #endif
    }
}
