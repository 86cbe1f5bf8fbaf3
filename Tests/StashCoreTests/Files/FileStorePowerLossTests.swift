import Foundation
import StashTestSupport
import Testing
@testable import StashCore

/// `FileStore.write` and `ArchiveFile.save`, against power cuts simulated by the crash
/// explorer: a power-safe save that returned survives whole; a process-safe one leaves a
/// whole version, the new one or an older one.
@Suite struct FileStorePowerLossTests {
    /// Every version each file was given, in order, and per file the first version it may
    /// still show (the last power-safe save that returned); absent when none returned.
    struct Acknowledged: Sendable {
        var versions: [String: [Data]] = [:]
        var floor: [String: Int] = [:]
    }

    static func version(_ n: Int, of name: String) -> Data {
        // Long enough to span several sectors, so that a torn write can show.
        Data((0..<(1_500 + n * 97)).map { "\(name) v\(n) \($0);" }.joined().utf8)
    }

    /// Saves two files in turn, and an `ArchiveFile`, with `durability`; each save that
    /// returns is taken as power-safe.
    /// The saves of each file: more when the explorer's budget is larger.
    func workload(_ folder: URL, durability: FileStore.Durability, saves: Int = 10, acknowledged: LockedValue<Acknowledged>) throws {
        let archive = ArchiveFile<[String: Int]>(url: folder.appendingPathComponent("state.plist"), durability: durability)
        for n in 1...saves {
            for name in ["notes.json", "draft.json"] {
                let data = Self.version(n, of: name)
                acknowledged.withLock { $0.versions[name, default: []].append(data) }
                try FileStore.write(data, to: folder.appendingPathComponent(name), durability: durability)
                acknowledged.withLock { $0.floor[name] = $0.versions[name]!.count - 1 }
            }
            // The archive is checked by loading it: its versions are counted, not kept.
            acknowledged.withLock { $0.versions["state.plist", default: []].append(Data()) }
            try archive.save(["saves": n, "checksum": n * 7919])
            acknowledged.withLock { $0.floor["state.plist"] = $0.versions["state.plist"]!.count - 1 }
        }
    }

    func check(_ folder: URL, _ acknowledged: Acknowledged) throws -> [String] {
        var problems: [String] = []
        for (name, versions) in acknowledged.versions {
            let url = folder.appendingPathComponent(name)
            guard let shown = try? Data(contentsOf: url) else {
                if let floor = acknowledged.floor[name] { problems.append("\(name) is gone, version \(floor + 1) was power-safe") }
                continue
            }
            if name == "state.plist" {
                guard let value = try? ArchiveFile<[String: Int]>(url: url).load(), let saves = value["saves"],
                      value["checksum"] == saves * 7919
                else {
                    problems.append("\(name) does not load as a whole archive")
                    continue
                }
                if let floor = acknowledged.floor[name], saves < floor + 1 { problems.append("\(name) shows save \(saves), save \(floor + 1) was power-safe") }
                continue
            }
            guard let index = versions.lastIndex(of: shown) else {
                problems.append("\(name) holds \(shown.count) bytes that are no version written")
                continue
            }
            if let floor = acknowledged.floor[name], index < floor { problems.append("\(name) shows version \(index + 1), version \(floor + 1) was power-safe") }
        }
        do {
            try FileStore.write(Data("after".utf8), to: folder.appendingPathComponent("notes.json"))
        } catch {
            problems.append("the next write fails: \(error)")
        }
        return problems
    }

    @Test(arguments: PersistenceModel.allCases)
    func aPowerSafeSaveSurvivesAPowerCut(model: PersistenceModel) async {
        let acknowledged = LockedValue(Acknowledged())
        let explorer = CrashExplorer<Acknowledged>("file store / archives", model: model)
        let report = await offThePool { explorer.run(
            workload: { try workload($0, durability: .powerSafe, saves: max(10, explorer.budget / 40), acknowledged: acknowledged) },
            expectation: { acknowledged.withLock { $0 } },
            check: check
        ) }
        #expect(report.states >= min(CrashExplorer<Acknowledged>.defaultBudget, 100), "\(report)")
        #expect(report.violations.isEmpty, "\(report)")
    }

    /// The explorer catches a save that skips its fsyncs: taken at its word as power-safe, a
    /// process-safe save is lost or torn in some crash state, under either model.
    @Test(arguments: PersistenceModel.allCases)
    func aSaveWithoutFsyncIsCaught(model: PersistenceModel) async {
        let acknowledged = LockedValue(Acknowledged())
        let report = await offThePool { CrashExplorer<Acknowledged>("file store (.processSafe taken as power-safe)", model: model).run(
            workload: { try workload($0, durability: .processSafe, acknowledged: acknowledged) },
            expectation: { acknowledged.withLock { $0 } },
            check: check
        ) }
        #expect(!report.violations.isEmpty, "\(report)")
    }
}
