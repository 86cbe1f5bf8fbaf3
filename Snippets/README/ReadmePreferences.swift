import Foundation
import Observation
import Stash

extension Preferences.Key where Value == Bool {
    static let onboardingDone = Preferences.Key("onboardingDone", default: false)
}
struct Profile: Codable, Sendable { var name: String }
// snippet.hide
let home = ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"]!
try PropertyList.dictionary(["theme": "dark"]).write(to: URL(fileURLWithPath: home).appendingPathComponent("com.example.app.plist"), format: .xml)
// snippet.show

let prefs = Preferences.standard                      // the app's suite, in Sandbox.main
prefs[.onboardingDone] = true
let profile = Preferences.Key<Profile?>("profile", default: nil)
prefs[profile] = Profile(name: "Ada")                 // any Codable: stored as JSON
try prefs.set("abc", forKey: "token", expiry: .after(3600))

try prefs.importUserDefaults(suite: "com.example.app")   // adopt ~/.config/com.example.app.plist

let shared = try Preferences(suite: "shared", group: "group.com.example")
@Observable final class Settings {                     // SwiftUI views follow it
    @ObservationIgnored @Preference(.onboardingDone, store: shared) var onboardingDone
}

// Atomic read-modify-write, across threads and processes:
let launches = try prefs.increment(forKey: "launchCount")
try prefs.update(forKey: "history") { old in .string((old.map { "\($0)," } ?? "") + "opened") }
try prefs.withLock { transaction in                    // several keys at once; a throw writes nothing
    let balance = transaction.integer(forKey: "balance")
    try transaction.set(balance - 5, forKey: "balance")
    try transaction.set(Date(), forKey: "lastPurchase")
}
// snippet.hide
print("onboarding \(prefs[.onboardingDone]) profile \(prefs[profile]?.name ?? "-")")
print("theme \(prefs.string(forKey: "theme") ?? "-") launches \(launches)")
print("balance \(prefs.integer(forKey: "balance"))")
