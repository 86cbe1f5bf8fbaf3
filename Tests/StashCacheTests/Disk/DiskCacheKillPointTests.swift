import Foundation
import StashCache
import StashCore
import StashTestSupport
import Testing

/// Process crashes at deterministic kill points (`STASH_KILL_POINT`): the child
/// (`cache.compact`) is killed at its first file call in the cache's folder, then its second,
/// and so on through the log appends of nine flushes and the compaction that follows, until
/// a run ends without reaching the point. After each kill, every value acknowledged by a
/// flush reads back whole, from its round or a later one, and the cache takes a write.
@Suite(.timeLimit(.minutes(5)))
struct DiskCacheKillPointTests {
    static func value(_ round: Int, key: Int) -> Data {
        Data("round \(round) key \(key) ".utf8) + Data(repeating: UInt8(truncatingIfNeeded: round &* 41 &+ key), count: 880)
    }

    @Test func aKillAtEveryCallOfAppendsAndACompactionLosesNothingFlushed() async throws {
        var killed = 0
        var afterTheLastFlush = 0
        var completed = false
        for point in 1...2_000 {
            let folder = TemporaryFolder("cache-kill")
            let directory = folder.file("cache")
            let child = try ChildProcess.testHost(
                "cache.compact", directory.path, environment: [FaultInjection.killPointVariable: "any:\(point):\(directory.path)"]
            )
            let lines = await child.allLines()
            let status = await child.exitStatus()
            if status == 0 {
                #expect(lines.last == "done", "\(lines)")
                completed = true
                break
            }
            #expect(status == 128 + SIGKILL, "kill point \(point): \(child.standardError())")
            killed += 1
            let flushed = lines.compactMap { $0.hasPrefix("flushed ") ? Int($0.dropFirst(8)) : nil }.max()
            if flushed == 8 { afterTheLastFlush += 1 }
            let cache = try DiskCache(directory: directory)
            for key in 0..<300 {
                let shown = cache.data(forKey: "k\(key)")
                let rounds = (flushed ?? -1)...8
                let allowed = rounds.compactMap { $0 < 0 ? nil : Self.value($0, key: key) }
                if let shown {
                    #expect(allowed.contains(shown), "kill point \(point): k\(key) shows a value not written in rounds \(rounds)")
                } else {
                    #expect(flushed == nil, "kill point \(point): k\(key) lost after round \(flushed ?? -1) was flushed")
                }
            }
            try cache.set(Data("next".utf8), forKey: "next")
            try cache.close()
        }
        print("disk cache kill points: \(killed) calls killed, \(afterTheLastFlush) after the last flush (the compaction)")
        #expect(completed)
        #expect(afterTheLastFlush >= 3)
    }
}
