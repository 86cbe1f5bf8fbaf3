import Foundation
import StashCore
import StashTestSupport
import Testing
@testable import StashPreferences

/// The preferences rows of the Durability table, against power cuts simulated by the crash
/// explorer: writes, removals, transactions, `flush()`, `.durable` stores and compaction.
@Suite struct PreferencesPowerLossTests {
    /// What the workload was told at one moment: every value each key was given, in order
    /// (`nil`: removed), and per key the first of them it may still show (the last one
    /// acknowledged as power-safe).
    struct Acknowledged: Sendable {
        var history: [String: [Int?]] = [:]
        var floor: [String: Int] = [:]

        mutating func wrote(_ value: Int?, forKey key: String) { history[key, default: [nil]].append(value) }

        /// Everything written so far is power-safe now.
        mutating func synced() {
            for (key, values) in history { floor[key] = values.count - 1 }
        }
    }

    static let fileName = "settings.stashprefs"
    static let pairKeys = ["pair.a", "pair.b"]

    /// Sets and removes keys, rewrites them until the log compacts (and compacts once more
    /// on request), and writes pairs of keys in one transaction; a flush every few steps,
    /// or every write with `.durable`.
    func workload(_ folder: URL, options: Preferences.Options, rounds: Int, acknowledged: LockedValue<Acknowledged>) throws {
        let prefs = try Preferences(url: folder.appendingPathComponent(Self.fileName), options: options)
        defer { prefs.close() }
        let durable = options.contains(.durable)
        var next = 0
        // A value may show once its write started; it must once the write returned durable.
        func set(_ key: String, _ value: Int?) throws {
            acknowledged.withLock { $0.wrote(value, forKey: key) }
            if let value { try prefs.set(value, forKey: key) } else { try prefs.removeValue(forKey: key) }
            if durable { acknowledged.withLock { $0.synced() } }
        }
        for round in 0..<rounds {
            for key in 0..<8 {
                next += 1
                try set("key.\(key)", round == 3 && key % 3 == 0 ? nil : next)
            }
            next += 1
            let pair = next
            acknowledged.withLock { state in
                for key in Self.pairKeys { state.wrote(pair, forKey: key) }
            }
            try prefs.withLock { transaction in
                for key in Self.pairKeys { try transaction.set(pair, forKey: key) }
            }
            if durable { acknowledged.withLock { $0.synced() } }
            // A large value that most rewrites leave dead, so that the log compacts.
            try prefs.set(Data(repeating: UInt8(round), count: 6_000), forKey: "filler")
            if round == 2 { try prefs.compact() }
            if round % 2 == 1 {
                try prefs.flush()
                acknowledged.withLock { $0.synced() }
            }
        }
    }

    /// Opens the image, checks each key against what was acknowledged (and the values of an
    /// older file the workload upgraded, `original`), and writes once more.
    func check(_ folder: URL, _ acknowledged: Acknowledged, original: [String: PreferenceValue] = [:]) throws -> [String] {
        let prefs = try Preferences(url: folder.appendingPathComponent(Self.fileName))
        var problems: [String] = []
        for (key, value) in original where prefs.object(forKey: key) != value {
            problems.append("\(key) of the older file shows \(String(describing: prefs.object(forKey: key)))")
        }
        for (key, values) in acknowledged.history {
            let shown = prefs.value(forKey: key, as: Int.self)
            let floor = acknowledged.floor[key] ?? 0
            guard let index = values.lastIndex(of: shown) else {
                problems.append("\(key) shows \(shown.map(String.init) ?? "nothing"), never written")
                continue
            }
            if index < floor {
                problems.append("\(key) shows \(shown.map(String.init) ?? "nothing"), older than the power-safe \(values[floor].map(String.init) ?? "removal")")
            }
        }
        let pair = Self.pairKeys.map { prefs.value(forKey: $0, as: Int.self) }
        if pair[0] != pair[1] { problems.append("a transaction shows in part: \(pair)") }
        do {
            try prefs.set(1, forKey: "after")
            try prefs.flush()
            if prefs.value(forKey: "after", as: Int.self) != 1 { problems.append("the next write does not show") }
        } catch {
            problems.append("the next write fails: \(error)")
        }
        prefs.close()
        return problems
    }

    @Test(arguments: PersistenceModel.allCases)
    func flushedWritesSurviveAPowerCut(model: PersistenceModel) async {
        let acknowledged = LockedValue(Acknowledged())
        let explorer = CrashExplorer<Acknowledged>("preferences", model: model)
        let report = await offThePool { explorer.run(
            workload: { try workload($0, options: [], rounds: max(10, explorer.budget / 100), acknowledged: acknowledged) },
            expectation: { acknowledged.withLock { $0 } },
            check: { try check($0, $1) }
        ) }
        #expect(report.states >= min(CrashExplorer<Acknowledged>.defaultBudget, 100), "\(report)")
        #expect(report.violations.isEmpty, "\(report)")
    }

    @Test(arguments: PersistenceModel.allCases)
    func durableWritesSurviveAPowerCut(model: PersistenceModel) async {
        let acknowledged = LockedValue(Acknowledged())
        let explorer = CrashExplorer<Acknowledged>("preferences (.durable)", model: model)
        let report = await offThePool { explorer.run(
            workload: { try workload($0, options: .durable, rounds: max(10, explorer.budget / 100), acknowledged: acknowledged) },
            expectation: { acknowledged.withLock { $0 } },
            check: { try check($0, $1) }
        ) }
        #expect(report.states >= min(CrashExplorer<Acknowledged>.defaultBudget, 100), "\(report)")
        #expect(report.violations.isEmpty, "\(report)")
    }

    /// Every value of a file in an older format.
    static func values(of fixture: Data) throws -> [String: PreferenceValue] {
        let folder = TemporaryFolder("prefs-fixture")
        try fixture.write(to: folder.file(fileName))
        let prefs = try Preferences(url: folder.file(fileName))
        defer { prefs.close() }
        return Dictionary(uniqueKeysWithValues: prefs.keys.map { ($0, prefs.object(forKey: $0)!) })
    }

    /// A file in format 1 or 2, left by an older version (synced long ago), upgraded by the
    /// workload's first write: no crash state loses one of its values.
    @Test(arguments: PersistenceModel.allCases, [1, 2])
    func anOlderFormatUpgradesWithoutLosingAValue(model: PersistenceModel, version: Int) async throws {
        let fixture = version == 1 ? FormatVersion1Fixture.bytes : FormatVersion2Fixture.bytes
        let original = try Self.values(of: fixture)
        #expect(original.count == 17)
        let acknowledged = LockedValue(Acknowledged())
        let report = await offThePool { CrashExplorer<Acknowledged>("preferences (format \(version) upgraded)", model: model).run(
            prepare: { try fixture.write(to: $0.appendingPathComponent(Self.fileName)) },
            workload: { try workload($0, options: [], rounds: 4, acknowledged: acknowledged) },
            expectation: { acknowledged.withLock { $0 } },
            check: { try check($0, $1, original: original) }
        ) }
        #expect(report.states >= min(CrashExplorer<Acknowledged>.defaultBudget, 60), "\(report)")
        #expect(report.violations.isEmpty, "\(report)")
    }
}
