@testable import StashSecure
import Testing

/// The decisions of a Keychain write, driven by scripted Security result codes: what
/// `SecItemUpdate` and `SecItemAdd` answer when two first writes of one entry race.
struct KeychainUpsertTests {
    /// Answers scripted result codes in order and records which call got each.
    final class SecurityCalls {
        var updates: [Int32]
        var adds: [Int32]
        var calls: [String] = []

        init(updates: [Int32], adds: [Int32]) {
            self.updates = updates
            self.adds = adds
        }

        func store() -> KeychainUpsert.Outcome {
            KeychainUpsert.store(
                update: { calls.append("update"); return updates.removeFirst() },
                add: { calls.append("add"); return adds.removeFirst() }
            )
        }
    }

    @Test func anExistingItemIsUpdatedOnly() {
        let security = SecurityCalls(updates: [KeychainStatus.success], adds: [])
        #expect(security.store() == .init(status: KeychainStatus.success, action: "update"))
        #expect(security.calls == ["update"])
    }

    @Test func aMissingItemIsAdded() {
        let security = SecurityCalls(updates: [KeychainStatus.itemNotFound], adds: [KeychainStatus.success])
        #expect(security.store() == .init(status: KeychainStatus.success, action: "add"))
        #expect(security.calls == ["update", "add"])
    }

    /// Two first writes at once: both updates find nothing, the other writer's add lands
    /// first, so this add finds a duplicate; the write becomes an update and succeeds.
    @Test func anAddThatFindsAnotherWritersItemBecomesAnUpdate() {
        let security = SecurityCalls(
            updates: [KeychainStatus.itemNotFound, KeychainStatus.success], adds: [KeychainStatus.duplicateItem]
        )
        #expect(security.store() == .init(status: KeychainStatus.success, action: "update"))
        #expect(security.calls == ["update", "add", "update"])
    }

    /// The item added by another writer is removed again before the retried update: the
    /// write adds it itself on the next round.
    @Test func aRemovalBetweenTheRoundsIsAnsweredByAnotherAdd() {
        let security = SecurityCalls(
            updates: [KeychainStatus.itemNotFound, KeychainStatus.itemNotFound],
            adds: [KeychainStatus.duplicateItem, KeychainStatus.success]
        )
        #expect(security.store() == .init(status: KeychainStatus.success, action: "add"))
        #expect(security.calls == ["update", "add", "update", "add"])
    }

    /// Races lost round after round end after a bounded number of calls, with the
    /// duplicate reported (never a loop without end).
    @Test func racesLostEveryRoundEndWithTheDuplicateReported() {
        let rounds = KeychainUpsert.attempts
        let security = SecurityCalls(
            updates: Array(repeating: KeychainStatus.itemNotFound, count: rounds),
            adds: Array(repeating: KeychainStatus.duplicateItem, count: rounds)
        )
        #expect(security.store() == .init(status: KeychainStatus.duplicateItem, action: "add"))
        #expect(security.calls.count == 2 * rounds)
    }

    /// Other failures are reported as they are, from the call that saw them.
    @Test func otherFailuresAreReportedFromTheCallThatSawThem() {
        let interactionNotAllowed: Int32 = -25308
        let locked = SecurityCalls(updates: [interactionNotAllowed], adds: [])
        #expect(locked.store() == .init(status: interactionNotAllowed, action: "update"))
        let refusedAdd = SecurityCalls(updates: [KeychainStatus.itemNotFound], adds: [interactionNotAllowed])
        #expect(refusedAdd.store() == .init(status: interactionNotAllowed, action: "add"))
        #expect(refusedAdd.calls == ["update", "add"])
    }
}
