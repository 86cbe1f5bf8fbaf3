package import Foundation

extension Sandbox {
    struct Layout {
        var folders: [Folder: URL]
        var groupsBase: URL?
    }

    /// The standard folders of `app` on this platform.
    static func systemLayout(app: String, environment: [String: String]) -> Layout {
        #if canImport(Darwin) && !os(macOS)
        // iOS, tvOS, watchOS, visionOS: the process already runs inside its container.
        let manager = FileManager.default
        let library = manager.urls(for: .libraryDirectory, in: .userDomainMask)[0]
        return Layout(
            folders: [
                .documents: manager.urls(for: .documentDirectory, in: .userDomainMask)[0],
                .library: library,
                .applicationSupport: manager.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0],
                .preferences: library.appendingPathComponent("Preferences", isDirectory: true),
                .caches: manager.urls(for: .cachesDirectory, in: .userDomainMask)[0],
                .temporary: manager.temporaryDirectory,
            ],
            groupsBase: nil
        )
        #elseif os(macOS)
        // macOS: sandboxed apps get their container from these calls; others share the
        // user's folders, so the identifier is appended where apps would collide.
        let manager = FileManager.default
        let library = manager.urls(for: .libraryDirectory, in: .userDomainMask)[0]
        return Layout(
            folders: [
                .documents: manager.urls(for: .documentDirectory, in: .userDomainMask)[0],
                .library: library,
                .applicationSupport: manager.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
                    .appendingPathComponent(app, isDirectory: true),
                .preferences: library.appendingPathComponent("Preferences", isDirectory: true),
                .caches: manager.urls(for: .cachesDirectory, in: .userDomainMask)[0]
                    .appendingPathComponent(app, isDirectory: true),
                .temporary: manager.temporaryDirectory.appendingPathComponent(app, isDirectory: true),
            ],
            groupsBase: nil
        )
        #else
        let xdg = XDGDirectories(environment: environment)
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
        #endif
    }
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
