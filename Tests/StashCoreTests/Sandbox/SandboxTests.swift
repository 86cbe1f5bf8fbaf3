import Foundation
import StashCore
import StashTestSupport
import Testing

struct SandboxTests {
    @Test func linuxMappingFollowsXDGWithAFakeHome() throws {
        #if os(Linux)
        let home = TemporaryFolder("home")
        let env = ["HOME": home.url.path, "TMPDIR": home.url.path + "/tmp"]
        let sandbox = try Sandbox(app: "com.example.notes", environment: env)
        let base = home.url.standardizedFileURL.path
        #expect(sandbox.documents.path == base + "/.local/share/com.example.notes/Documents")
        #expect(sandbox.applicationSupport.path == base + "/.local/share/com.example.notes")
        #expect(sandbox.caches.path == base + "/.cache/com.example.notes")
        #expect(sandbox.preferences.path == base + "/.config/com.example.notes")
        #expect(sandbox.temporary.path == base + "/tmp/com.example.notes")
        #endif
    }

    @Test func xdgVariablesWinAndRelativeOnesAreIgnored() throws {
        #if os(Linux)
        let env = [
            "HOME": "/home/ada",
            "XDG_DATA_HOME": "/data",
            "XDG_CONFIG_HOME": "relative/config",
            "XDG_CACHE_HOME": "/var/cache/ada",
            "TMPDIR": "",
        ]
        let sandbox = try Sandbox(app: "notes", environment: env)
        #expect(sandbox.documents.path == "/data/notes/Documents")
        #expect(sandbox.preferences.path == "/home/ada/.config/notes")
        #expect(sandbox.caches.path == "/var/cache/ada/notes")
        #expect(sandbox.temporary.path == "/tmp/notes")
        #endif
    }

    @Test func rootOverridePutsEverythingUnderOneFolder() throws {
        let folder = TemporaryFolder("root")
        let root = folder.url.appendingPathComponent("portable")
        let sandbox = try Sandbox(root: root, app: "com.example.notes")
        for item in Sandbox.Folder.allCases {
            #expect(sandbox.path(for: item).path.hasPrefix(root.standardizedFileURL.path + "/"))
        }
        #expect(sandbox.caches.path.hasSuffix("/Library/Caches"))
        #expect(!FileStore.exists(root), "paths alone create nothing")
        let shared = try sandbox.groupContainer("group.com.example")
        #expect(shared.path == root.standardizedFileURL.path + "/Shared/group.com.example")
        #expect(FileStore.isFolder(shared))
    }

    @Test(arguments: ["", ".", "..", "a/b", "../x", "a\\b", "tab\there", "nul\u{0}", "del\u{7F}", String(repeating: "x", count: 256)])
    func badIdentifiersAreRefused(name: String) {
        let error = #expect(throws: StashError.self) { try Sandbox(app: name, environment: ["HOME": "/nonexistent"]) }
        #expect(error?.code == .invalidName)
        let folder = TemporaryFolder("root")
        #expect(throws: StashError.self) { try Sandbox(root: folder.url, app: name) }
        #expect(throws: StashError.self) { try folder.sandbox().groupContainer(name) }
    }

    @Test(arguments: ["com.example.notes", "Notes App", "é-app_2"])
    func goodIdentifiersAreAccepted(name: String) throws {
        #expect(try Sandbox(app: name, environment: ["HOME": "/nonexistent"]).app == name)
    }

    @Test func foldersAreCreatedOwnerOnlyAndCachesAreTagged() throws {
        let folder = TemporaryFolder("root")
        let sandbox = folder.sandbox()
        for item in Sandbox.Folder.allCases {
            let url = try sandbox.url(for: item)
            #expect(FileStore.isFolder(url))
            #expect(try FileStoreTests.mode(url) == 0o700, "\(item)")
            #expect(BackupExclusion.isMarked(url) == item.isExcludedFromBackup, "\(item)")
        }
        #if os(Linux)
        let tag = try FileStore.read(sandbox.caches.appendingPathComponent("CACHEDIR.TAG"))
        #expect(String(decoding: tag, as: UTF8.self).hasPrefix("Signature: 8a477f597d28d172789f06886806bc55"))
        #expect(FileStore.exists(sandbox.temporary.appendingPathComponent("CACHEDIR.TAG")))
        #expect(!FileStore.exists(sandbox.documents.appendingPathComponent("CACHEDIR.TAG")))
        #endif
    }

    @Test func systemSandboxCreatesFoldersUnderTheFakeHome() throws {
        #if os(Linux)
        let home = TemporaryFolder("home")
        let sandbox = try Sandbox(app: "com.example.notes", environment: ["HOME": home.url.path, "TMPDIR": home.url.path])
        let caches = try sandbox.url(for: .caches)
        #expect(caches.path.hasPrefix(home.url.standardizedFileURL.path))
        #expect(BackupExclusion.isMarked(caches))
        #endif
    }
}
