import Foundation
import StashCore
import StashSecure
import StashTestSupport
import Testing

/// The `Vault`'s encrypted file storage under an I/O fault at each of its calls (see
/// `FaultSweep`): the first set also creates the master key file (written, then
/// hard-linked into place); every change rewrites the vault file atomically.
struct VaultFaultTests {
    @Test func everyFailedCallLeavesOneWholeVault() {
        typealias Step = FaultSweep<Vault, [String: Data]>.Step
        let sweep = FaultSweep<Vault, [String: Data]>(
            name: "Vault (file)", initial: [:],
            open: { folder in
                try Vault(service: "com.example.app", keyring: Keyring(folder: folder.appendingPathComponent("keyring", isDirectory: true)))
            },
            close: { _ in },
            read: { vault in
                var values: [String: Data] = [:]
                for key in try vault.allKeys { values[key] = try vault.data(forKey: key) }
                return values
            },
            steps: [
                Step("set token", apply: { try $0.set(Data("t1".utf8), forKey: "token") }, change: { $0["token"] = Data("t1".utf8) }),
                Step("set pin", apply: { try $0.set(Data("1234".utf8), forKey: "pin") }, change: { $0["pin"] = Data("1234".utf8) }),
                Step("remove token", apply: { try $0.removeValue(forKey: "token") }, change: { $0["token"] = nil }),
                Step("replace pin", apply: { try $0.set(Data("5678".utf8), forKey: "pin") }, change: { $0["pin"] = Data("5678".utf8) }),
            ],
            then: Step("set after", apply: { try $0.set(Data("a".utf8), forKey: "after") }, change: { $0["after"] = Data("a".utf8) })
        )
        let report = sweep.run()
        #expect(report.calls > 20)
        #expect(report.injected == report.calls)
        #expect(report.problems.isEmpty, "\(report.problems.joined(separator: "\n"))")
    }
}
