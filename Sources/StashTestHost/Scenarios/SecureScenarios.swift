import Foundation
import Stash

/// Scenarios named "secure.…".
let secureScenarios: [String: Scenario] = [:]
