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

/// Waits until the file at `path` exists (a start barrier: a parent starts several children,
/// waits for each to report "ready", then creates the file so that they start their work
/// together); at most a minute.
func awaitStart(_ path: String) throws {
    let deadline = ContinuousClock.now + .seconds(60)
    while !FileManager.default.fileExists(atPath: path) {
        guard ContinuousClock.now < deadline else { throw StashError(.io, "the start barrier \(path) was never released") }
        usleep(500)
    }
}

/// The error a scenario throws when its arguments are wrong.
func usage(_ text: String) -> StashError {
    StashError(.invalidName, "usage: StashTestHost \(text)")
}
