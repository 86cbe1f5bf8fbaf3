import Foundation
import Stash

/// Scenarios named "preferences.…".
let preferencesScenarios: [String: Scenario] = [:]
