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
        /// Whether the rotation to the passphrase had returned.
        var rotated = false
    }

    static let passphrase = VaultKey.passphrase("rotated", cost: VaultFixture.fastCost)

    static func open(_ folder: URL, key: VaultKey = .keyFile()) throws -> Vault {
        try Vault(service: "com.example.app", keyring: Keyring(folder: folder.appendingPathComponent("keyring", isDirectory: true)), key: key)
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
            // Half way, the vault is sealed again under a passphrase.
            if round == rounds / 2 {
                try vault.rotate(to: Self.passphrase)
                acknowledged.withLock { $0.rotated = true }
            }
        }
    }

    func check(_ folder: URL, _ acknowledged: Acknowledged) throws -> [String] {
        var problems: [String] = []
        // Whole under the old key or whole under the new one; the new one once rotate returned.
        let byKeyFile = try? Self.open(folder)
        let vault: Vault
        if let byKeyFile, (try? byKeyFile.allKeys) != nil {
            if acknowledged.rotated { problems.append("the old key still opens the vault after the rotation returned") }
            vault = byKeyFile
        } else {
            do {
                vault = try Self.open(folder, key: Self.passphrase)
                _ = try vault.allKeys
            } catch {
                return ["the vault opens under neither key: \(error)"]
            }
        }
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
