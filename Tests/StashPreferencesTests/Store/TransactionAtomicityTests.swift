import Foundation
import StashCore
import StashTestSupport
import Testing
@testable import StashPreferences

/// A transaction is one commit: when the disk fills while the file grows for its second
/// write, its first write is visible neither to this store nor to another instance (another
/// process's view), nor after a reopen.
struct TransactionAtomicityTests {
    #if os(Linux)
    static let growth = FaultInjection.Call.allocate
    #else
    static let growth = FaultInjection.Call.pwrite
    #endif

    @Test func aTransactionThatCannotGrowTheFileLeavesNothing() throws {
        let folder = TemporaryFolder("prefs-transaction")
        let url = folder.file("shop.stashprefs")
        let prefs = try Preferences(url: url)
        try prefs.set(100, forKey: "balance")
        let other = try Preferences(url: url)
        #expect(other.integer(forKey: "balance") == 100)

        let plan = FaultInjection.arm(folder: folder.url.path, failing: 1, of: Self.growth, with: ENOSPC)
        defer { plan.disarm() }
        #expect { 
            try prefs.withLock { transaction in
                try transaction.set(95, forKey: "balance")
                try transaction.set(Data(repeating: 1, count: 64 * 1024), forKey: "receipt")
            }
        } throws: { ($0 as? StashError)?.code == .diskFull }
        plan.disarm()
        #expect(plan.injected == 1)

        #expect(prefs.integer(forKey: "balance") == 100)
        #expect(prefs.object(forKey: "receipt") == nil)
        #expect(other.integer(forKey: "balance") == 100)
        #expect(other.object(forKey: "receipt") == nil)
        prefs.close()
        other.close()
        let reopened = try Preferences(url: url)
        #expect(reopened.integer(forKey: "balance") == 100)
        #expect(reopened.object(forKey: "receipt") == nil)
        // Once there is room, the same transaction applies whole.
        try reopened.withLock { transaction in
            try transaction.set(95, forKey: "balance")
            try transaction.set(Data(repeating: 1, count: 64 * 1024), forKey: "receipt")
        }
        #expect(reopened.integer(forKey: "balance") == 95)
        #expect(reopened.value(forKey: "receipt", as: Data.self)?.count == 64 * 1024)
    }

    /// Many writes in one transaction (more than a record group holds) come back whole.
    @Test func aLargeTransactionIsOneCommit() throws {
        let folder = TemporaryFolder("prefs-transaction")
        let url = folder.file("many.stashprefs")
        let prefs = try Preferences(url: url)
        try prefs.withLock { transaction in
            for index in 0..<100 { try transaction.set(index, forKey: "k\(index)") }
        }
        prefs.close()
        let reopened = try Preferences(url: url)
        #expect(reopened.storedValues().count == 100)
        #expect(reopened.integer(forKey: "k99") == 99)
        #expect(reopened.recoveryReport == nil)
    }
}
