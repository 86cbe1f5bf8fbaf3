import Observation
import StashPreferences

extension Preferences.Key where Value == Double {
    static let volume = Preferences.Key("volume", default: 0.8)
}

@Observable final class PlayerModel {
    var title = "Now playing"
    @ObservationIgnored @Preference(.volume) var volume    // the wrapper is what is tracked
}

let model = PlayerModel()
withObservationTracking {
    print("volume \(model.volume)")
} onChange: {
    print("the volume changed")
}
model.volume = 0.3                       // stored in Preferences.standard, then "the volume changed"
if let error = model.$volume.lastError { print("not stored: \(error)") }
// snippet.hide
print("stored \(Preferences.standard[.volume])")
