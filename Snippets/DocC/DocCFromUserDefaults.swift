import Foundation
import Observation
import StashCore
import StashPreferences

// snippet.hide
// What UserDefaults left behind: the suite's plist, where Foundation keeps it on this platform.
let left = Preferences.userDefaultsFile(suite: "com.example.app")
try FileManager.default.createDirectory(at: left.deletingLastPathComponent(), withIntermediateDirectories: true)
try PropertyList.dictionary(["theme": "dark", "launchCount": 3, "volume": 0.5]).write(to: left, format: .binary)
@MainActor func applyTheme(_ theme: String) {}
// snippet.show
// Keys: a name, a type, and the default that register(defaults:) used to give.
extension Preferences.Key where Value == String {
    static let theme = Preferences.Key("theme", default: "light")
}
extension Preferences.Key where Value == Double {
    static let volume = Preferences.Key("volume", default: 0.8)
}
extension Preferences.Key where Value == Bool {
    static let adoptedUserDefaults = Preferences.Key("adoptedUserDefaults", default: false)
}
struct Account: Codable, Sendable { var name: String; var plan: String }
extension Preferences.Key where Value == Account? {
    static let account = Preferences.Key<Account?>("account", default: nil)   // any Codable, as JSON
}

let prefs = Preferences.standard                         // UserDefaults.standard

// Once: adopt what UserDefaults kept for the app (every key of its plist, in one write).
if !prefs[.adoptedUserDefaults] {
    do {
        try prefs.importUserDefaults(suite: "com.example.app")
    } catch StashError.Code.notFound {
        // a new install: nothing to adopt
    }
    prefs[.adoptedUserDefaults] = true
}

prefs.register(defaults: ["fontSize": .integer(14)])     // untyped keys: memory only, as before
prefs[.volume] = 0.7                                     // set(0.7, forKey: "volume")
let theme = prefs[.theme]                                // string(forKey: "theme") ?? "light"
let launches = prefs.integer(forKey: "launchCount")      // the untyped reads keep their names
prefs[.account] = Account(name: "Ada", plan: "pro")      // no JSONEncoder, no Data
try prefs.flush()                                        // synchronize(): only a power cut needs it

// KVO and UserDefaults.didChangeNotification: a stream of the key's values.
let watcher = Task {
    for await theme in prefs.values(for: .theme) { applyTheme(theme) }
}

// @AppStorage("volume"): @Preference(.volume), in a view or an @Observable model.
@Observable final class PlayerModel {
    @ObservationIgnored @Preference(.volume) var volume
}

// UserDefaults(suiteName: "group.com.example"): a suite in the app group's container.
let shared = try Preferences(suite: "settings", group: "group.com.example")
struct WidgetSettings {
    @Preference(.theme, store: shared) var theme          // @AppStorage("theme", store: …)
}
// snippet.hide
watcher.cancel()
try shared.set("dark", for: .theme)
print("theme \(theme) launches \(launches) volume \(prefs[.volume])")
print("account \(prefs[.account]?.name ?? "-") fontSize \(prefs.integer(forKey: "fontSize"))")
print("model \(PlayerModel().volume) widget \(WidgetSettings().theme)")
