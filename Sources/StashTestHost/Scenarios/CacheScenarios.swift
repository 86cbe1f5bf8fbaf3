import Foundation
import Stash

/// Scenarios named "cache.…".
let cacheScenarios: [String: Scenario] = [:]
