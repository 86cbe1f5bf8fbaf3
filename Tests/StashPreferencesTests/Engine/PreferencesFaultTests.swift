import Foundation
import StashCore
import StashTestSupport
import Testing
@testable import StashPreferences

/// `Preferences` (durable, so that every msync and fsync is in the workload) under an I/O
/// fault at each of its calls (see `FaultSweep`): opening, sets, a transaction, a removal,
/// a set that grows the file, a compaction.
struct PreferencesFaultTests {
    @Test func everyFailedCallLeavesWholeCommits() {
        typealias Step = FaultSweep<Preferences, [String: PreferenceValue]>.Step
        let big = PreferenceValue.data(Data(repeating: 7, count: 40_000))
        let sweep = FaultSweep<Preferences, [String: PreferenceValue]>(
            name: "Preferences", initial: [:],
            open: { try Preferences(url: $0.appendingPathComponent("settings.stashprefs"), options: .durable) },
            close: { $0.close() },
            read: { $0.storedValues() },
            steps: [
                Step("set a", apply: { try $0.set(.integer(1), forKey: "a") }, change: { $0["a"] = .integer(1) }),
                Step("set b", apply: { try $0.set(.string("x"), forKey: "b") }, change: { $0["b"] = .string("x") }),
                Step("transaction", apply: { prefs in
                    try prefs.withLock { transaction in
                        try transaction.set(.integer(2), forKey: "a")
                        try transaction.set(.integer(3), forKey: "c")
                    }
                }, change: { $0["a"] = .integer(2); $0["c"] = .integer(3) }),
                Step("remove b", apply: { try $0.removeValue(forKey: "b") }, change: { $0["b"] = nil }),
                Step("set big (grows the file)", apply: { try $0.set(big, forKey: "big") }, change: { $0["big"] = big }),
                Step("compact", apply: { try $0.compact() }, change: { _ in }),
            ],
            then: Step("set after", apply: { try $0.set(.bool(true), forKey: "after") }, change: { $0["after"] = .bool(true) })
        )
        let report = sweep.run()
        #expect(report.calls > 20)
        #expect(report.injected == report.calls)
        #expect(report.problems.isEmpty, "\(report.problems.joined(separator: "\n"))")
    }
}
