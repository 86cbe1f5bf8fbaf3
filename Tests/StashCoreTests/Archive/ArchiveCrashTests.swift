import Foundation
import StashCore
import StashTestSupport
import Testing

/// A child process saves a large archive over and over and is killed with SIGKILL in the
/// middle; the file must always hold one whole generation, at least the last acknowledged.
struct ArchiveCrashTests {
    /// Mirrors the child's `CrashTestPayload` (StashTestHost/Scenarios/CoreScenarios.swift).
    struct Payload: Codable {
        var generation: Int
        var lines: [String]
    }

    @Test func sigkillDuringSavesNeverLeavesAMix() throws {
        let folder = TemporaryFolder("archive-crash")
        let url = folder.file("big.plist")
        let archive = ArchiveFile<Payload>(url: url)
        var next = 0
        for round in 0..<5 {
            let child = try ChildProcess.testHost("core.archive-write-loop", url.path, String(next))
            // Let a few saves complete (one more each round, so kills land at varied moments).
            var acknowledged = -1
            for _ in 0..<(2 + round) {
                guard let line = child.readLine(), line.hasPrefix("saved ") else { break }
                acknowledged = Int(line.dropFirst(6)) ?? -1
            }
            child.kill()
            #expect(child.wait() == 128 + SIGKILL)
            #expect(acknowledged >= next, "the child saved nothing: \(child.standardError())")

            let value = try archive.load()
            #expect(value.generation >= acknowledged, "an acknowledged save was lost")
            #expect(value.lines.count == 20_000)
            #expect(value.lines.allSatisfy { $0.hasPrefix("generation \(value.generation) ") }, "a mix of two saves")
            next = value.generation + 1
        }
        // Kills before a rename leave temporary files; the clean-up removes them only.
        let clock = ManualClock()
        #expect(try FileStore.removeLeftoverTemporaryFiles(in: folder.url, clock: clock) == 0, "too young")
        clock.advance(by: 7200)
        try FileStore.removeLeftoverTemporaryFiles(in: folder.url, clock: clock)
        #expect(try FileStore.list(folder.url) == ["big.plist"])
        #expect(try archive.load().generation == next - 1)
    }
}
