import Foundation
import StashCore

/// One child-process scenario: runs with its arguments, prints progress lines on stdout.
typealias Scenario = @Sendable ([String]) async throws -> Void

extension Dictionary where Key == String, Value == Scenario {
    func merging(_ other: [String: Scenario]) -> [String: Scenario] {
        merging(other) { first, _ in first }
    }
}

/// Prints one line and flushes it, so that a parent reading the pipe sees it before a kill.
func report(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// The error a scenario throws when its arguments are wrong.
func usage(_ text: String) -> StashError {
    StashError(.invalidName, "usage: StashTestHost \(text)")
}
