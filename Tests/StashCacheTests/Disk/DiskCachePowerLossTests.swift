import Foundation
@testable import StashCache
import StashCore
import StashTestSupport
import Testing

/// The disk cache's row of the Durability table, against power cuts simulated by the crash
/// explorer, its own file calls and SQLite's (the manifest) alike: a cache is disposable, so a
/// power cut may take back what was not synced, but what a key shows after it is always a
/// value written for that key, whole; the cache opens, and takes the next write.
@Suite struct DiskCachePowerLossTests {
    /// Every value each key was given, by a short fingerprint (its first bytes and size).
    struct Written: Sendable {
        var values: [String: Set<Data>] = [:]
    }

    static func value(_ key: Int, _ round: Int, size: Int) -> Data {
        var data = Data("k\(key) r\(round) ".utf8)
        data.append(Data(repeating: UInt8(truncatingIfNeeded: key &* 31 &+ round), count: size))
        return data
    }

    /// Writes past the compaction floor with replacements, removals and values large enough
    /// for files of their own, flushing each round and compacting at the end of some.
    func workload(_ folder: URL, written: LockedValue<Written>) throws {
        var configuration = DiskCache.Configuration()
        configuration.flushDelay = 3600
        configuration.inlineThreshold = 16 * 1024
        let cache = try DiskCache(directory: folder.appendingPathComponent("cache"), configuration: configuration)
        for round in 0..<5 {
            for key in 0..<90 {
                let large = key % 30 == 0
                let data = Self.value(key, round, size: large ? 20_000 : 4_000 + key * 10)
                _ = written.withLock { $0.values["k\(key)", default: []].insert(data) }
                try cache.set(data, forKey: "k\(key)")
            }
            if round == 2 { for key in stride(from: 0, to: 90, by: 7) { cache.removeValue(forKey: "k\(key)") } }
            try cache.queue.sync { try cache.flushNow() }
            if round >= 3 { try cache.queue.sync { try cache.compactIfDue() } }
        }
        try cache.close()
        // The windows that matter were reached: the first segment was compacted away.
        if FileManager.default.fileExists(atPath: folder.appendingPathComponent("cache/values/1.log").path) {
            throw StashError(.io, "the workload never compacted the log")
        }
    }

    func check(_ folder: URL, _ written: Written) throws -> [String] {
        var problems: [String] = []
        var configuration = DiskCache.Configuration()
        configuration.flushDelay = 3600
        let cache: DiskCache
        do {
            cache = try DiskCache(directory: folder.appendingPathComponent("cache"), configuration: configuration)
        } catch {
            return ["the cache does not open: \(error)"]
        }
        for (key, values) in written.values {
            if let shown = cache.data(forKey: key), !values.contains(shown) {
                problems.append("\(key) shows \(shown.count) bytes (\(String(decoding: shown.prefix(12), as: UTF8.self))) never written for it")
            }
        }
        do {
            let data = Self.value(1, 99, size: 5_000)
            try cache.set(data, forKey: "k1")
            try cache.queue.sync { try cache.flushNow() }
            if cache.data(forKey: "k1") != data { problems.append("the next write does not show") }
            try cache.close()
        } catch {
            problems.append("the next write fails: \(error)")
        }
        return problems
    }

    @Test(arguments: PersistenceModel.allCases)
    func aKeyShowsOnlyAValueWrittenForItAfterAPowerCut(model: PersistenceModel) async {
        ObservedSQLite.install()
        let written = LockedValue(Written())
        let report = await offThePool { CrashExplorer<Written>("disk cache", model: model).run(
            workload: { try workload($0, written: written) },
            expectation: { written.withLock { $0 } },
            check: check
        ) }
        #expect(report.states >= min(CrashExplorer<Written>.defaultBudget, 100), "\(report)")
        #expect(report.violations.isEmpty, "\(report)")
    }
}
