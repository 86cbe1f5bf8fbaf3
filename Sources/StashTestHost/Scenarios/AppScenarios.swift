import Foundation
import Stash

/// The entry `app.change-all` inserts: the checklist test declares the same table.
struct AppNote: Model {
    var id: Int64?
    var text: String
    static let entity = ObjectEntity<AppNote>(table: "note")
}

/// Scenarios named "app.…": an app extension changing what the app's view model shows.
let appScenarios: [String: Scenario] = [
    // app.change-all PREFS OBJECTS KEYRING: sets the preference "theme" to "dark", inserts a
    // note "from the extension" and sets the vault entry "signed-in" (service
    // com.example.app, the keyring's key file) to true; prints "changed".
    "app.change-all": { arguments in
        guard arguments.count == 3 else { throw usage("app.change-all PREFS OBJECTS KEYRING") }
        try Preferences(url: URL(fileURLWithPath: arguments[0])).set("dark", forKey: "theme")
        let store = try ObjectStore(url: URL(fileURLWithPath: arguments[1]), schema: ObjectSchema(AppNote.self))
        try store.write { tx in _ = try tx.insert(AppNote(id: nil, text: "from the extension")) }
        let keyring = Keyring(folder: URL(fileURLWithPath: arguments[2], isDirectory: true))
        try Vault(service: "com.example.app", keyring: keyring).set(true, for: Vault.Key<Bool>("signed-in"))
        report("changed")
    },
]
