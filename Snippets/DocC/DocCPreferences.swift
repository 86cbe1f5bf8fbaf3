import StashPreferences

// snippet.hide
@MainActor final class Player { var volume = 1.0 }
let player = Player()
// snippet.show
extension Preferences.Key where Value == Double {
    static let volume = Preferences.Key("volume", default: 0.8)
}

let prefs = Preferences.standard
prefs[.volume] = 0.5
let observer = Task {                   // values(for:) never ends: observe in a task
    for await volume in prefs.values(for: .volume) { player.volume = volume }
}
// snippet.hide
observer.cancel()
print("volume \(prefs[.volume])")
