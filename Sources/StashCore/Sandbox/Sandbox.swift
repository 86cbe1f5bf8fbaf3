public import Foundation

/// The folders an application keeps its data in: the iOS app sandbox, on every platform.
///
/// | folder | Apple platforms | Linux (XDG Base Directory) | backed up |
/// |---|---|---|---|
/// | ``documents`` | `Documents` | `$XDG_DATA_HOME/<app>/Documents` | yes |
/// | ``library`` | `Library` | `$XDG_DATA_HOME/<app>/Library` | yes |
/// | ``applicationSupport`` | `Library/Application Support` | `$XDG_DATA_HOME/<app>` | yes |
/// | ``preferences`` | `Library/Preferences` | `$XDG_CONFIG_HOME/<app>` | yes |
/// | ``caches`` | `Library/Caches` | `$XDG_CACHE_HOME/<app>` | no |
/// | ``temporary`` | `tmp` | `$TMPDIR/<app>` | no |
///
/// On iOS, tvOS, watchOS and visionOS the folders are inside the app's container. On macOS
/// they are in the user's home (a sandboxed app's container), with the identifier appended to
/// Application Support, Caches and the temporary folder (`~/Library/Caches/<app>`), where
/// apps would otherwise share a folder.
///
/// `$XDG_DATA_HOME` defaults to `~/.local/share`, `$XDG_CONFIG_HOME` to `~/.config`,
/// `$XDG_CACHE_HOME` to `~/.cache` and `$TMPDIR` to `/tmp`; `~` is `$HOME`. Relative XDG
/// values are ignored, as the specification requires.
///
/// The properties only name folders. ``url(for:)`` creates a folder on first use with
/// owner-only permissions (0700) and marks caches and temporary as excluded from backup
/// (`isExcludedFromBackup` on Apple platforms, a `CACHEDIR.TAG` file on Linux, which tar,
/// borg and restic honour).
///
/// ```swift
/// let sandbox = try Sandbox(app: "com.example.notes")
/// let documents = try sandbox.url(for: .documents)   // created if missing
/// let portable = try Sandbox(root: URL(fileURLWithPath: "/opt/notes-data"))
/// ```
///
/// `Sandbox` is a value: copying it is cheap and it is safe to share between threads.
public struct Sandbox: Sendable, Hashable, CustomStringConvertible {
    /// The folders of a sandbox.
    public enum Folder: String, CaseIterable, Sendable, CustomStringConvertible {
        case documents
        case library
        case applicationSupport
        case preferences
        case caches
        case temporary

        /// Whether backups should skip this folder (caches and temporary files).
        public var isExcludedFromBackup: Bool { self == .caches || self == .temporary }

        public var description: String { rawValue }
    }

    /// The application identifier the folders are named after.
    public let app: String
    /// Where each folder is.
    let folders: [Folder: URL]
    /// Where group containers live (Linux and `root:` sandboxes).
    let groupsBase: URL?
    /// The root folder of a `Sandbox(root:)`, `nil` for a system sandbox.
    public let root: URL?

    /// The sandbox of application `app` in the user's standard folders.
    ///
    /// - parameters:
    ///   - app: The application identifier, such as `com.example.notes`. It becomes a folder
    ///     name, so it may not be empty, `.` or `..`, nor contain `/`, `\` or control
    ///     characters, nor be longer than 255 bytes.
    ///   - environment: Where `$HOME`, the XDG variables and `$TMPDIR` are read from (Linux).
    /// - throws: ``StashError/Code/invalidName`` for a bad identifier.
    public init(app: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        try Sandbox.validate(name: app, what: "application identifier")
        self.init(validatedApp: app, environment: environment)
    }

    private init(validatedApp app: String, environment: [String: String]) {
        self.init(validatedApp: app, layout: Sandbox.systemLayout(app: app, environment: environment))
    }

    /// The sandbox of `app` with the folders of `layout`: another platform's layout, in tests.
    package init(app: String, layout: Layout) throws {
        try Sandbox.validate(name: app, what: "application identifier")
        self.init(validatedApp: app, layout: layout)
    }

    private init(validatedApp app: String, layout: Layout, root: URL? = nil) {
        self.app = app
        self.root = root
        self.folders = layout.folders
        self.groupsBase = layout.groupsBase
    }

    /// A sandbox with every folder under `root`: for tests and portable installs.
    ///
    /// The layout mirrors iOS: `Documents`, `Library`, `Library/Application Support`,
    /// `Library/Preferences`, `Library/Caches`, `tmp`, and group containers in `Shared/`.
    public init(root: URL, app: String = "app") throws {
        try Sandbox.validate(name: app, what: "application identifier")
        let root = root.standardizedFileURL
        let layout = Layout.container(home: root, groupsBase: root.appendingPathComponent("Shared", isDirectory: true))
        self.init(validatedApp: app, layout: layout, root: root)
    }

    /// The sandbox of the running program: its bundle identifier on Apple platforms, its
    /// executable's name elsewhere (characters that are not allowed become `-`).
    public static var main: Sandbox {
        // A command-line tool usually has no bundle identifier; on Linux none has one.
        let name = Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName
        let cleaned = String(name.unicodeScalars.map { scalar -> Character in
            scalar == "/" || scalar == "\\" || scalar.properties.generalCategory == .control ? "-" : Character(scalar)
        })
        // A process name such as ".." or "" falls back to a fixed name.
        let app = (try? Sandbox.validate(name: cleaned, what: "application identifier")) != nil ? cleaned : "stash-app"
        return Sandbox(validatedApp: app, environment: ProcessInfo.processInfo.environment)
    }

    // MARK: Folders

    /// Where a folder is, without creating it.
    public func path(for folder: Folder) -> URL { folders[folder]! }

    /// A folder, created on first use with owner-only permissions and marked as excluded
    /// from backup when it should be.
    ///
    /// - throws: ``StashError`` when the folder cannot be created.
    @discardableResult
    public func url(for folder: Folder) throws -> URL {
        let url = path(for: folder)
        if !FileStore.isFolder(url) {
            try FileStore.createFolder(url)
        }
        if folder.isExcludedFromBackup { try BackupExclusion.mark(url) }
        return url
    }

    /// Documents: the user's files. Backed up.
    public var documents: URL { path(for: .documents) }
    /// Library: data the app keeps that is not the user's documents. Backed up.
    public var library: URL { path(for: .library) }
    /// Application support: files the app needs to run (databases, downloaded content).
    /// Backed up.
    public var applicationSupport: URL { path(for: .applicationSupport) }
    /// Preferences: settings files. Backed up.
    public var preferences: URL { path(for: .preferences) }
    /// Caches: data that can be downloaded or computed again. Not backed up; the system
    /// may delete it when space runs low.
    public var caches: URL { path(for: .caches) }
    /// Temporary files. Not backed up; delete them when done.
    public var temporary: URL { path(for: .temporary) }

    public var description: String {
        if let root { return "Sandbox(\(app) at \(root.path))" }
        return "Sandbox(\(app))"
    }

    // MARK: Validation

    /// Checks that `name` is safe as one folder name.
    package static func validate(name: String, what: String) throws {
        func reject(_ reason: String) -> StashError {
            StashError(.invalidName, "\(what) \(reason)", key: name)
        }
        if name.isEmpty { throw reject("is empty") }
        if name == "." || name == ".." { throw reject("may not be '.' or '..'") }
        if name.utf8.count > 255 { throw reject("is longer than 255 bytes") }
        for scalar in name.unicodeScalars {
            if scalar == "/" || scalar == "\\" { throw reject("may not contain '/' or '\\'") }
            if scalar.value < 0x20 || scalar.value == 0x7F || scalar.properties.generalCategory == .control {
                throw reject("may not contain control characters")
            }
        }
    }
}
