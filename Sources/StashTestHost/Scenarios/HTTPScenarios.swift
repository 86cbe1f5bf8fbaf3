import Foundation
import Stash

/// Scenarios named "http.…".
let httpScenarios: [String: Scenario] = [:]
