import Foundation
import StashCache
import StashCore
import StashTestSupport
import Testing

/// `ExpiringPool` and `BoundedQueue` saves under an I/O fault at each of their calls (see
/// `FaultSweep`): a failed save throws and leaves the previous save, whole; the file loads.
/// Each step changes the collection and saves it, and says what it changed in the model.
/// The same workloads under simulated power cuts (`CrashExplorer`): every save that
/// returned survives.
struct CollectionFaultTests {
    /// A pool and the file it saves to; opening loads the file when there is one.
    final class SavedPool {
        let url: URL
        let pool: ExpiringPool<String, Int>
        init(folder: URL) throws {
            url = folder.appendingPathComponent("recent.json")
            pool = FileStore.exists(url)
                ? try ExpiringPool(contentsOf: url, countLimit: 100, defaultExpiry: .never)
                : ExpiringPool(countLimit: 100, defaultExpiry: .never)
        }
        func change(_ body: (ExpiringPool<String, Int>) -> Void) throws {
            body(pool)
            try pool.save(to: url)
        }
        var saved: [String: Int] {
            get throws {
                guard FileStore.exists(url) else { return [:] }
                let loaded = try ExpiringPool<String, Int>(contentsOf: url, countLimit: 100, defaultExpiry: .never)
                return Dictionary(uniqueKeysWithValues: loaded.entries.map { ($0.key, $0.value) })
            }
        }
    }

    typealias PoolStep = FaultSweep<SavedPool, [String: Int]>.Step
    static var poolSteps: [PoolStep] { [
        PoolStep("set a, save", apply: { try $0.change { _ = $0.set(1, forKey: "a") } }, change: { $0["a"] = 1 }),
        PoolStep("set b, save", apply: { try $0.change { _ = $0.set(2, forKey: "b") } }, change: { $0["b"] = 2 }),
        PoolStep("remove a, save", apply: { try $0.change { _ = $0.removeValue(forKey: "a") } }, change: { $0["a"] = nil }),
        // A save of many sectors, so that a torn one has room to show.
        PoolStep("set 8 long keys, save", apply: { try $0.change { pool in for i in 0..<8 { _ = pool.set(i, forKey: Self.longKey(i)) } } },
                 change: { for i in 0..<8 { $0[Self.longKey(i)] = i } }),
    ] }
    static func longKey(_ i: Int) -> String { "key \(i) " + String(repeating: "\(i)", count: 600) }
    static var poolThen: PoolStep { PoolStep("set c, save", apply: { try $0.change { _ = $0.set(3, forKey: "c") } }, change: { $0["c"] = 3 }) }

    @Test func everyFailedPoolSaveLeavesTheSaveBefore() {
        let sweep = FaultSweep<SavedPool, [String: Int]>(
            name: "ExpiringPool", initial: [:],
            open: { try SavedPool(folder: $0) }, close: { _ in }, read: { try $0.saved },
            steps: Self.poolSteps, then: Self.poolThen
        )
        let report = sweep.run()
        #expect(report.calls == 24)
        #expect(report.injected == report.calls)
        #expect(report.problems.isEmpty, "\(report.problems.joined(separator: "\n"))")
    }

    /// A queue and the file it saves to; opening loads the file when there is one.
    final class SavedQueue {
        let url: URL
        let queue: BoundedQueue<String>
        init(folder: URL) throws {
            url = folder.appendingPathComponent("outbox.json")
            queue = FileStore.exists(url) ? try BoundedQueue(contentsOf: url, countLimit: 1_000) : BoundedQueue(countLimit: 1_000)
        }
        func change(_ body: (BoundedQueue<String>) -> Void) throws {
            body(queue)
            try queue.save(to: url)
        }
        var saved: [String] {
            get throws { FileStore.exists(url) ? try BoundedQueue<String>(contentsOf: url, countLimit: 1_000).elements : [] }
        }
    }

    typealias QueueStep = FaultSweep<SavedQueue, [String]>.Step
    static var queueSteps: [QueueStep] { [
        QueueStep("append 1, save", apply: { try $0.change { _ = $0.append("one") } }, change: { $0.append("one") }),
        QueueStep("append 2, save", apply: { try $0.change { _ = $0.append("two") } }, change: { $0.append("two") }),
        QueueStep("pop, save", apply: { try $0.change { _ = $0.popFirst() } }, change: { $0.removeFirst() }),
        QueueStep("append 8 long ones, save", apply: { try $0.change { queue in for i in 0..<8 { _ = queue.append(Self.longKey(i)) } } },
                  change: { for i in 0..<8 { $0.append(Self.longKey(i)) } }),
    ] }
    static var queueThen: QueueStep { QueueStep("append 3, save", apply: { try $0.change { _ = $0.append("three") } }, change: { $0.append("three") }) }

    @Test func everyFailedQueueSaveLeavesTheSaveBefore() {
        let sweep = FaultSweep<SavedQueue, [String]>(
            name: "BoundedQueue", initial: [],
            open: { try SavedQueue(folder: $0) }, close: { _ in }, read: { try $0.saved },
            steps: Self.queueSteps, then: Self.queueThen
        )
        let report = sweep.run()
        #expect(report.calls == 24)
        #expect(report.injected == report.calls)
        #expect(report.problems.isEmpty, "\(report.problems.joined(separator: "\n"))")
    }

    @Test(arguments: PersistenceModel.allCases)
    func everySaveThatReturnedSurvivesAPowerCut(model: PersistenceModel) async {
        let pools = await offThePool { CrashExplorer<Int>("pools", model: model).run(
            initial: [:], open: { try SavedPool(folder: $0) }, close: { _ in }, read: { try $0.saved },
            steps: Self.poolSteps, then: Self.poolThen
        ) }
        #expect(pools.states >= 10, "\(pools)")
        #expect(pools.violations.isEmpty, "\(pools)")
        let queues = await offThePool { CrashExplorer<Int>("queues", model: model).run(
            initial: [], open: { try SavedQueue(folder: $0) }, close: { _ in }, read: { try $0.saved },
            steps: Self.queueSteps, then: Self.queueThen
        ) }
        #expect(queues.states >= 10, "\(queues)")
        #expect(queues.violations.isEmpty, "\(queues)")
    }
}
