import Foundation
import Stash

/// Scenarios named "core.…".
let coreScenarios: [String: Scenario] = [
    "core.archive-write-loop": archiveWriteLoop,
    "core.hold-lock": holdLock,
]

/// The value the crash test writes: a large archive whose every element carries the
/// generation, so that a mix of two saves is visible.
struct CrashTestPayload: Codable, Sendable {
    var generation: Int
    var lines: [String]

    init(generation: Int) {
        self.generation = generation
        lines = (0..<20_000).map { "generation \(generation) line \($0)" }
    }
}

/// `core.archive-write-loop FILE START`: saves generations START, START+1, … to FILE
/// forever, printing "saved N" after each save returns. The parent kills it with SIGKILL.
@Sendable func archiveWriteLoop(_ arguments: [String]) async throws {
    guard arguments.count == 2, let start = Int(arguments[1]) else {
        throw StashError(.invalidKey, "usage: core.archive-write-loop FILE START")
    }
    let archive = ArchiveFile<CrashTestPayload>(url: URL(fileURLWithPath: arguments[0]), format: .binary)
    var generation = start
    while true {
        try archive.save(CrashTestPayload(generation: generation))
        report("saved \(generation)")
        generation += 1
    }
}

/// `core.hold-lock FILE`: takes an exclusive FileLock on FILE, prints "locked", and holds
/// it until killed.
@Sendable func holdLock(_ arguments: [String]) async throws {
    guard arguments.count == 1 else { throw StashError(.invalidKey, "usage: core.hold-lock FILE") }
    let lock = try FileLock(url: URL(fileURLWithPath: arguments[0]))
    try lock.lock(.exclusive)
    report("locked")
    while true { try await Task.sleep(nanoseconds: 1_000_000_000) }
}
