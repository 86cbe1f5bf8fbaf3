package import Foundation

extension Sandbox {
    /// Where the folders of a sandbox are, and where its group containers live. Every layout is
    /// computed by code that all platforms compile (and Linux tests); ``systemLayout(app:environment:)``
    /// only chooses which one a platform uses.
    package struct Layout: Hashable, Sendable {
        package var folders: [Folder: URL]
        /// Where `groupContainer(_:)` makes group folders; `nil` for the system's app-group
        /// containers (Apple platforms).
        package var groupsBase: URL?

        /// An app container, as iOS, tvOS, watchOS and visionOS give every app (and as
        /// `Sandbox(root:)` mirrors): `Documents`, `Library`, `Library/Application Support`,
        /// `Library/Preferences`, `Library/Caches` and `tmp`, all inside `home`.
        package static func container(home: URL, groupsBase: URL?) -> Layout {
            let library = home.appendingPathComponent("Library", isDirectory: true)
            return Layout(
                folders: [
                    .documents: home.appendingPathComponent("Documents", isDirectory: true),
                    .library: library,
                    .applicationSupport: library.appendingPathComponent("Application Support", isDirectory: true),
                    .preferences: library.appendingPathComponent("Preferences", isDirectory: true),
                    .caches: library.appendingPathComponent("Caches", isDirectory: true),
                    .temporary: home.appendingPathComponent("tmp", isDirectory: true),
                ],
                groupsBase: groupsBase
            )
        }

        /// macOS: the folders of `home` (the user's, or a sandboxed app's container), with the
        /// app's identifier appended where apps would otherwise share a folder: Application
        /// Support, Caches and the temporary folder (`temporary`, which macOS keeps outside
        /// the home folder).
        package static func macOS(app: String, home: URL, temporary: URL) -> Layout {
            var layout = container(home: home, groupsBase: nil)
            for folder in [Folder.applicationSupport, .caches] {
                layout.folders[folder] = layout.folders[folder]?.appendingPathComponent(app, isDirectory: true)
            }
            layout.folders[.temporary] = temporary.appendingPathComponent(app, isDirectory: true)
            return layout
        }

        /// Linux and other systems: the XDG Base Directories, one folder per app in each, and
        /// group folders in `$XDG_DATA_HOME`.
        package static func xdg(app: String, directories xdg: XDGDirectories) -> Layout {
            let data = xdg.dataHome.appendingPathComponent(app, isDirectory: true)
            return Layout(
                folders: [
                    .documents: data.appendingPathComponent("Documents", isDirectory: true),
                    .library: data.appendingPathComponent("Library", isDirectory: true),
                    .applicationSupport: data,
                    .preferences: xdg.configHome.appendingPathComponent(app, isDirectory: true),
                    .caches: xdg.cacheHome.appendingPathComponent(app, isDirectory: true),
                    .temporary: xdg.temporary.appendingPathComponent(app, isDirectory: true),
                ],
                groupsBase: xdg.dataHome
            )
        }
    }

    /// The standard folders of `app` on this platform: `#if` only chooses the layout. On Apple
    /// platforms `NSHomeDirectory()` is the app's container (iOS and its siblings, sandboxed
    /// macOS apps) or the user's home folder.
    static func systemLayout(app: String, environment: [String: String]) -> Layout {
        #if os(macOS)
        return .macOS(app: app, home: appleHome, temporary: FileManager.default.temporaryDirectory)
        #elseif canImport(Darwin)
        return .container(home: appleHome, groupsBase: nil)
        #else
        return .xdg(app: app, directories: XDGDirectories(environment: environment))
        #endif
    }

    /// The home folder Apple platforms give the process.
    static var appleHome: URL { URL(fileURLWithPath: NSHomeDirectory(), isDirectory: true) }
}

/// The XDG Base Directory locations, read from an environment.
///
/// Only absolute values count; a relative or empty `XDG_*` value is ignored, as the
/// specification says. `$HOME` falls back to the user database when it is unset.
package struct XDGDirectories: Sendable, Hashable {
    /// `$XDG_DATA_HOME`, or `$HOME/.local/share`.
    package var dataHome: URL
    /// `$XDG_CONFIG_HOME`, or `$HOME/.config`.
    package var configHome: URL
    /// `$XDG_CACHE_HOME`, or `$HOME/.cache`.
    package var cacheHome: URL
    /// `$TMPDIR`, or `/tmp`.
    package var temporary: URL
    /// `$HOME`.
    package var home: URL

    package init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        func absolute(_ name: String) -> URL? {
            guard let value = environment[name], value.hasPrefix("/") else { return nil }
            return URL(fileURLWithPath: value, isDirectory: true).standardizedFileURL
        }
        let home = absolute("HOME") ?? FileManager.default.homeDirectoryForCurrentUser
        self.home = home
        dataHome = absolute("XDG_DATA_HOME") ?? home.appendingPathComponent(".local/share", isDirectory: true)
        configHome = absolute("XDG_CONFIG_HOME") ?? home.appendingPathComponent(".config", isDirectory: true)
        cacheHome = absolute("XDG_CACHE_HOME") ?? home.appendingPathComponent(".cache", isDirectory: true)
        temporary = absolute("TMPDIR") ?? URL(fileURLWithPath: "/tmp", isDirectory: true)
    }
}
