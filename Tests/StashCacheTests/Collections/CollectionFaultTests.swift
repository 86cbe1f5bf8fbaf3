import Foundation
import StashCache
import StashCore
import StashTestSupport
import Testing

/// `ExpiringPool` and `BoundedQueue` saves under an I/O fault at each of their calls (see
/// `FaultSweep`): a failed save throws and leaves the previous save, whole; the file loads.
/// Each step changes the collection and saves it, so the model is the whole snapshot saved.
struct CollectionFaultTests {
    /// A pool and the file it saves to; opening loads the file when there is one.
    final class SavedPool {
        let url: URL
        let pool: ExpiringPool<String, Int>
        init(folder: URL) throws {
            url = folder.appendingPathComponent("recent.json")
            pool = FileStore.exists(url)
                ? try ExpiringPool(contentsOf: url, countLimit: 10, defaultExpiry: .never)
                : ExpiringPool(countLimit: 10, defaultExpiry: .never)
        }
        func change(_ body: (ExpiringPool<String, Int>) -> Void) throws {
            body(pool)
            try pool.save(to: url)
        }
        var saved: [String: Int] {
            get throws {
                guard FileStore.exists(url) else { return [:] }
                let loaded = try ExpiringPool<String, Int>(contentsOf: url, countLimit: 10, defaultExpiry: .never)
                return Dictionary(uniqueKeysWithValues: loaded.entries.map { ($0.key, $0.value) })
            }
        }
    }

    @Test func everyFailedPoolSaveLeavesTheSaveBefore() {
        typealias Step = FaultSweep<SavedPool, [String: Int]>.Step
        let sweep = FaultSweep<SavedPool, [String: Int]>(
            name: "ExpiringPool", initial: [:],
            open: { try SavedPool(folder: $0) }, close: { _ in }, read: { try $0.saved },
            steps: [
                Step("set a, save", apply: { try $0.change { _ = $0.set(1, forKey: "a") } }, change: { $0 = ["a": 1] }),
                Step("set b, save", apply: { try $0.change { _ = $0.set(2, forKey: "b") } }, change: { $0 = ["a": 1, "b": 2] }),
                Step("remove a, save", apply: { try $0.change { _ = $0.removeValue(forKey: "a") } }, change: { $0 = ["b": 2] }),
            ],
            then: Step("set c, save", apply: { try $0.change { _ = $0.set(3, forKey: "c") } }, change: { $0["c"] = 3 })
        )
        let report = sweep.run()
        #expect(report.calls == 18)
        #expect(report.injected == report.calls)
        #expect(report.problems.isEmpty, "\(report.problems.joined(separator: "\n"))")
    }

    /// A queue and the file it saves to; opening loads the file when there is one.
    final class SavedQueue {
        let url: URL
        let queue: BoundedQueue<String>
        init(folder: URL) throws {
            url = folder.appendingPathComponent("outbox.json")
            queue = FileStore.exists(url) ? try BoundedQueue(contentsOf: url, countLimit: 10) : BoundedQueue(countLimit: 10)
        }
        func change(_ body: (BoundedQueue<String>) -> Void) throws {
            body(queue)
            try queue.save(to: url)
        }
        var saved: [String] {
            get throws { FileStore.exists(url) ? try BoundedQueue<String>(contentsOf: url, countLimit: 10).elements : [] }
        }
    }

    @Test func everyFailedQueueSaveLeavesTheSaveBefore() {
        typealias Step = FaultSweep<SavedQueue, [String]>.Step
        let sweep = FaultSweep<SavedQueue, [String]>(
            name: "BoundedQueue", initial: [],
            open: { try SavedQueue(folder: $0) }, close: { _ in }, read: { try $0.saved },
            steps: [
                Step("append 1, save", apply: { try $0.change { _ = $0.append("one") } }, change: { $0 = ["one"] }),
                Step("append 2, save", apply: { try $0.change { _ = $0.append("two") } }, change: { $0 = ["one", "two"] }),
                Step("pop, save", apply: { try $0.change { _ = $0.popFirst() } }, change: { $0 = ["two"] }),
            ],
            then: Step("append 3, save", apply: { try $0.change { _ = $0.append("three") } }, change: { $0.append("three") })
        )
        let report = sweep.run()
        #expect(report.calls == 18)
        #expect(report.injected == report.calls)
        #expect(report.problems.isEmpty, "\(report.problems.joined(separator: "\n"))")
    }
}
