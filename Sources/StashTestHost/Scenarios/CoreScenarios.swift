import Foundation
import Stash

/// Scenarios named "core.…".
let coreScenarios: [String: Scenario] = [:]
