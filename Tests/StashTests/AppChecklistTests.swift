import Foundation
import Observation
import Stash
import StashTestSupport
import Testing

/// The note table `StashTestHost app.change-all` writes (same table and columns).
struct AppNote: Model {
    var id: Int64?
    var text: String
    static let entity = ObjectEntity<AppNote>(table: "note")
}

extension Preferences.Key where Value == String {
    fileprivate static let theme = Preferences.Key("theme", default: "light")
}

extension Vault.Key where Value == Bool {
    fileprivate static let signedIn = Vault.Key<Bool>("signed-in")
}

/// A view model as an app writes one: a preference, a live query and a vault flag.
@Observable private final class AppModel {
    @ObservationIgnored @Preference<String> var theme: String
    @ObservationIgnored @LiveQuery<AppNote> var notes: [AppNote]
    @ObservationIgnored @VaultEntry<Bool> var signedIn: Bool?

    init(prefs: Preferences, store: ObjectStore, vault: Vault) {
        _theme = Preference(.theme, store: prefs)
        _notes = LiveQuery(AppNote.query(), in: store)
        _signedIn = VaultEntry(.signedIn, in: vault)
    }
}

/// What an app checks before it ships, on Linux: the view model is told of
/// changes made by another task and by another process (an extension), and the stores in an
/// app-group container hold no file lock while the app is idle.
struct AppChecklistTests {
    let folder = TemporaryFolder("app-checklist")

    /// The app's stores, in its app-group container (a `root:` sandbox's groups folder).
    private struct Stores {
        let container: URL
        let prefs: Preferences
        let store: ObjectStore
        let keyring: Keyring
        let vault: Vault

        init(_ folder: TemporaryFolder) throws {
            let sandbox = try Sandbox(root: folder.url)
            container = try sandbox.groupContainer("group.com.example.app")
            prefs = try Preferences(suite: "shared", group: "group.com.example.app", sandbox: sandbox)
            store = try ObjectStore(url: container.appendingPathComponent("notes.sqlite"), schema: ObjectSchema(AppNote.self))
            keyring = Keyring(folder: container.appendingPathComponent("keyring", isDirectory: true))
            vault = try Vault(service: "com.example.app", keyring: keyring)
            // The key file the extension's vault will share.
            try vault.set("before", forKey: "seed")
        }
    }

    /// One tracking per property, each ended by its own change.
    private struct Trackings {
        let theme: ObservationFirings
        let notes: ObservationFirings
        let signedIn: ObservationFirings

        init(_ model: AppModel) {
            theme = ObservationFirings { _ = model.theme }
            notes = ObservationFirings { _ = model.notes }
            signedIn = ObservationFirings { _ = model.signedIn }
        }

        func allFired() -> Bool { theme.count > 0 && notes.count > 0 && signedIn.count > 0 }
    }

    @Test func theViewModelIsToldOfAnotherTasksChanges() async throws {
        let stores = try Stores(folder)
        let model = AppModel(prefs: stores.prefs, store: stores.store, vault: stores.vault)
        #expect(await eventually { !model.$notes.isLoading })
        let trackings = Trackings(model)
        try await Task.detached {
            try stores.prefs.set("dark", for: .theme)
            try await stores.store.write { tx in _ = try tx.insert(AppNote(id: nil, text: "from a task")) }
            try stores.vault.set(true, for: .signedIn)
        }.value
        #expect(await eventually { trackings.allFired() })
        #expect(await eventually { model.theme == "dark" && model.notes.map(\.text) == ["from a task"] && model.signedIn == true })
    }

    @Test func theViewModelIsToldOfAnotherProcessesChanges() async throws {
        let stores = try Stores(folder)
        let model = AppModel(prefs: stores.prefs, store: stores.store, vault: stores.vault)
        #expect(await eventually { !model.$notes.isLoading })
        let trackings = Trackings(model)
        let child = try ChildProcess.testHost(
            "app.change-all", stores.container.appendingPathComponent("Library/Preferences/shared.stashprefs").path,
            stores.container.appendingPathComponent("notes.sqlite").path, stores.keyring.folder.path
        )
        #expect(child.readAllLines() == ["changed"])
        #expect(child.wait() == 0, "child failed: \(child.standardError())")
        #expect(await eventually { trackings.allFired() })
        #expect(await eventually { model.theme == "dark" && model.notes.map(\.text) == ["from the extension"] && model.signedIn == true })
    }

    /// Idle (after writes, with the view model observing and its watches polling), the
    /// stores hold no lock in the container: the preferences once suspended, the cache once
    /// suspended, the object store and the vault without being asked. SQLite's read locks of
    /// an open WAL connection (which block no one) are the only ones left on the databases.
    @Test(.enabled(if: HeldFileLocks.isAvailable, "reads /proc/locks"))
    func storesInAnAppGroupHoldNoLockWhileIdle() async throws {
        let stores = try Stores(folder)
        let cache = try DiskCache(directory: stores.container.appendingPathComponent("Library/Caches/thumbnails"))
        let model = AppModel(prefs: stores.prefs, store: stores.store, vault: stores.vault)
        #expect(await eventually { !model.$notes.isLoading })
        try stores.prefs.set("dark", for: .theme)
        try await stores.store.write { tx in _ = try tx.insert(AppNote(id: nil, text: "idle")) }
        try stores.vault.set(true, for: .signedIn)
        try cache.set(Data("thumbnail".utf8), forKey: "a")
        #expect(await eventually { model.notes.count == 1 })

        // The app goes to the background.
        stores.prefs.suspend()
        try await cache.suspend()
        let files = [
            "Library/Preferences/shared.stashprefs.lock", "Library/Caches/thumbnails/writer.lock",
            "Library/Caches/thumbnails/manifest.sqlite-shm", "notes.sqlite", "notes.sqlite-shm",
            "keyring/services/com.example.app.vault.lock",
        ].map { stores.container.appendingPathComponent($0) }
        // Several looks, so that the watches' polls (every 50 to 100 ms) run in between. A
        // lock seen at one look and gone 20 ms later was a poll's own moment (a read of
        // `data_version`), not a lock the store holds: only one seen twice running counts.
        for look in 0..<20 {
            for file in files {
                var held = try HeldFileLocks.beyondOpenSQLiteConnections(on: file)
                if !held.isEmpty {
                    try await Task.sleep(for: .milliseconds(20))
                    held = try HeldFileLocks.beyondOpenSQLiteConnections(on: file)
                }
                #expect(held == [], "look \(look): \(file.lastPathComponent)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(model.theme == "dark" && model.signedIn == true)
        try cache.resume()
    }
}
