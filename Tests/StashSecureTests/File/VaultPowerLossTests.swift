import Foundation
import StashCore
import StashSecure
import StashTestSupport
import Testing

/// The vault's row of the Durability table (the encrypted file), against power cuts
/// simulated by the crash explorer: every change that returned survives, with the key that
/// opens it; the vault opens and takes the next change.
@Suite struct VaultPowerLossTests {
    /// Every value each key was given (`nil`: removed), and the index of the last one that
    /// returned.
    struct Acknowledged: Sendable {
        var history: [String: [Data?]] = [:]
        var floor: [String: Int] = [:]
    }

    static func open(_ folder: URL) throws -> Vault {
        try Vault(service: "com.example.app", keyring: Keyring(folder: folder.appendingPathComponent("keyring", isDirectory: true)))
    }

    /// Sets, replaces and removes two secrets for `rounds` rounds (more for a larger budget).
    func workload(_ folder: URL, rounds: Int, acknowledged: LockedValue<Acknowledged>) throws {
        let vault = try Self.open(folder)
        func change(_ key: String, _ value: Data?) throws {
            acknowledged.withLock { $0.history[key, default: [nil]].append(value) }
            if let value { try vault.set(value, forKey: key) } else { try vault.removeValue(forKey: key) }
            acknowledged.withLock { $0.floor[key] = $0.history[key]!.count - 1 }
        }
        for round in 0..<rounds {
            try change("token", Data("token \(round) ".utf8) + Data(repeating: UInt8(round), count: 6_000))
            try change("pin", Data("\(1000 + round)".utf8))
            if round % 3 == 2 { try change("token", nil) }
        }
    }

    func check(_ folder: URL, _ acknowledged: Acknowledged) throws -> [String] {
        var problems: [String] = []
        let vault: Vault
        do { vault = try Self.open(folder) } catch { return ["the vault does not open: \(error)"] }
        for (key, values) in acknowledged.history {
            let shown: Data?
            do { shown = try vault.data(forKey: key) } catch {
                problems.append("\(key) does not read: \(error)")
                continue
            }
            guard let index = values.lastIndex(of: shown) else {
                problems.append("\(key) shows a value never written")
                continue
            }
            if index < (acknowledged.floor[key] ?? 0) { problems.append("\(key) shows an older value than one that returned") }
        }
        do { try vault.set(Data("after".utf8), forKey: "after") } catch { problems.append("the next change fails: \(error)") }
        return problems
    }

    @Test(arguments: PersistenceModel.allCases)
    func everyChangeThatReturnedSurvivesAPowerCut(model: PersistenceModel) async {
        let acknowledged = LockedValue(Acknowledged())
        let explorer = CrashExplorer<Acknowledged>("vault", model: model)
        let report = await offThePool { explorer.run(
            workload: { try workload($0, rounds: max(8, explorer.budget / 25), acknowledged: acknowledged) },
            expectation: { acknowledged.withLock { $0 } },
            check: check
        ) }
        #expect(report.states >= min(CrashExplorer<Acknowledged>.defaultBudget, 60), "\(report)")
        #expect(report.violations.isEmpty, "\(report)")
    }
}
