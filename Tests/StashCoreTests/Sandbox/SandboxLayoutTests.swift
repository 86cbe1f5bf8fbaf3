import Foundation
import StashCore
import StashTestSupport
import Testing

/// The Apple platforms' layouts, computed and created on Linux against a temporary home
/// folder: the code that chooses them (`#if`) is all that Linux does not run.
struct SandboxLayoutTests {
    let home = TemporaryFolder("home")
    var base: URL { home.url.standardizedFileURL }

    func paths(_ sandbox: Sandbox) -> [Sandbox.Folder: String] {
        Dictionary(uniqueKeysWithValues: Sandbox.Folder.allCases.map { ($0, sandbox.path(for: $0).path) })
    }

    /// iOS, tvOS, watchOS, visionOS: everything inside the app's container.
    @Test func anAppContainerKeepsEveryFolderInsideItsHome() throws {
        let sandbox = try Sandbox(app: "com.example.notes", layout: .container(home: base, groupsBase: nil))
        let home = base.path
        #expect(paths(sandbox) == [
            .documents: home + "/Documents",
            .library: home + "/Library",
            .applicationSupport: home + "/Library/Application Support",
            .preferences: home + "/Library/Preferences",
            .caches: home + "/Library/Caches",
            .temporary: home + "/tmp",
        ])
        for folder in Sandbox.Folder.allCases {
            let url = try sandbox.url(for: folder)
            #expect(FileStore.isFolder(url))
            #expect(BackupExclusion.isMarked(url) == folder.isExcludedFromBackup)
        }
    }

    /// macOS: the user's (or the sandboxed app's) Library, the app's identifier appended where
    /// apps would share a folder; the temporary folder is the system's, outside the home.
    @Test func macOSAppendsTheIdentifierWhereAppsWouldShareAFolder() throws {
        let temporary = TemporaryFolder("macos-tmp")
        let sandbox = try Sandbox(app: "com.example.notes", layout: .macOS(app: "com.example.notes", home: base, temporary: temporary.url))
        let home = base.path
        #expect(paths(sandbox) == [
            .documents: home + "/Documents",
            .library: home + "/Library",
            .applicationSupport: home + "/Library/Application Support/com.example.notes",
            .preferences: home + "/Library/Preferences",
            .caches: home + "/Library/Caches/com.example.notes",
            .temporary: temporary.url.path + "/com.example.notes",
        ])
        let caches = try sandbox.url(for: .caches)
        #expect(FileStore.isFolder(caches) && BackupExclusion.isMarked(caches))
        #expect(try sandbox.url(for: .applicationSupport).path.hasPrefix(home + "/Library/Application Support/"))
    }

    /// Neither Apple layout has a folder for group containers: the system gives them.
    @Test func appleLayoutsAskTheSystemForGroupContainers() {
        #expect(Sandbox.Layout.container(home: base, groupsBase: nil).groupsBase == nil)
        #expect(Sandbox.Layout.macOS(app: "a", home: base, temporary: base).groupsBase == nil)
    }

    /// What Linux chooses: the XDG layout, the same one `Sandbox(app:environment:)` has.
    @Test func linuxChoosesTheXDGLayout() throws {
        let environment = ["HOME": base.path, "TMPDIR": base.path + "/tmp"]
        let system = try Sandbox(app: "com.example.notes", environment: environment)
        let xdg = try Sandbox(app: "com.example.notes", layout: .xdg(app: "com.example.notes", directories: XDGDirectories(environment: environment)))
        #expect(system == xdg)
        #expect(xdg.applicationSupport.path == base.path + "/.local/share/com.example.notes")
    }

    /// `Sandbox(root:)` is the app-container layout with group folders in `Shared/`.
    @Test func aRootSandboxIsTheAppContainerLayout() throws {
        let rooted = try Sandbox(root: base, app: "com.example.notes")
        let container = Sandbox.Layout.container(home: base, groupsBase: base.appendingPathComponent("Shared", isDirectory: true))
        let laidOut = try Sandbox(app: "com.example.notes", layout: container)
        #expect(paths(rooted) == paths(laidOut))
        #expect(try rooted.groupContainer("group.x").path == base.path + "/Shared/group.x")
    }
}
