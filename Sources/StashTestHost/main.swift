import Foundation
import StashCore
import StashTestSupport

// StashTestHost SCENARIO [ARGS…]
//
// The child process of Stash's crash and multi-process tests. A test launches it, reads what
// it reports on stdout (one line per acknowledged write, flushed), and kills it with SIGKILL
// at a moment of its choosing. Each module's scenarios live in Scenarios/<Module>Scenarios.swift.

let scenarios: [String: Scenario] = coreScenarios.merging(cacheScenarios).merging(preferencesScenarios)
    .merging(secureScenarios).merging(httpScenarios).merging(cookieScenarios).merging(postgresScenarios)
    .merging(objectsScenarios).merging(objectsMigrationScenarios).merging(appScenarios)

let arguments = Array(CommandLine.arguments.dropFirst())
guard let name = arguments.first, let scenario = scenarios[name] else {
    FileHandle.standardError.write(Data("usage: StashTestHost SCENARIO [ARGS…]; scenarios: \(scenarios.keys.sorted().joined(separator: ", "))\n".utf8))
    exit(64)
}
do {
    // A kill point counts SQLite's file calls too, through the observing VFS.
    if try FaultInjection.armKillPoint(fromEnvironment: ProcessInfo.processInfo.environment) != nil { ObservedSQLite.install() }
    try await scenario(Array(arguments.dropFirst()))
    exit(0)
} catch {
    FileHandle.standardError.write(Data("StashTestHost \(name): \(error)\n".utf8))
    exit(1)
}
