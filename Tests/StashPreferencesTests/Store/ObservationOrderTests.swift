import Dispatch
import Foundation
import StashCore
import StashTestSupport
import Testing
@testable import StashPreferences

/// Observers receive changes in commit order, although each is delivered after the store's
/// lock is released: two threads incrementing one key deliver 1, 2, 3, … and never leave a
/// `values(for:)` stream resting on an older value.
struct ObservationOrderTests {
    /// A counter that is slow to decode when even: the delivery of an even value (decoded on
    /// the writer's thread, after the store's lock is released) takes long enough for the
    /// other thread to commit and deliver the next, odd, one meanwhile.
    struct SlowCount: PreferenceStorable, Equatable {
        var value: Int64

        init(_ value: Int64) { self.value = value }

        init(preferenceValue: PreferenceValue) throws {
            value = try Int64(preferenceValue: preferenceValue)
            if value % 2 == 0 { usleep(200) }
        }

        func preferenceValue() throws -> PreferenceValue? { .integer(value) }
    }

    @Test func twoThreadsWritingOneKeyDeliverInCommitOrder() async throws {
        let folder = TemporaryFolder("prefs-order")
        let prefs = try Preferences(url: folder.file("order.stashprefs"))
        let key = Preferences.Key("n", default: SlowCount(0))
        let stream = prefs.values(for: key)
        let perThread = 300
        let collector = Task {
            var seen: [Int64] = []
            for await count in stream { seen.append(count.value) }
            return seen
        }
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            for _ in 0..<perThread { _ = try? prefs.increment(forKey: "n") }
        }
        // Every delivery was made by the writers before they returned; closing ends the stream.
        prefs.close()
        let seen = await collector.value
        let inversions = zip(seen, seen.dropFirst()).filter { $0 >= $1 }
        #expect(seen.count == 2 * perThread + 1)
        #expect(inversions.isEmpty, "\(inversions.count) values delivered after a newer one, e.g. \(inversions.prefix(3))")
        #expect(seen.last == Int64(2 * perThread))
    }
}
