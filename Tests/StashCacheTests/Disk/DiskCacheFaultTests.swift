import Foundation
@testable import StashCache
import StashCore
import StashTestSupport
import Testing

/// `DiskCache` bodies under an I/O fault at each of their calls (see `FaultSweep`): with
/// every value file-backed (`inlineThreshold` 0), each set writes a temporary file and
/// renames it into place; with every value small, each flush appends to the value log. The
/// manifest is SQLite's, whose own I/O is not part of the seam.
struct DiskCacheFaultTests {
    static let keys = ["a", "b", "c", "after"]

    /// Every value in its own file (`inlineThreshold` 0), or every value in the value log
    /// (the default threshold), whose appends and segment files go through the seam too.
    @Test(arguments: [0, DiskCache.Configuration().inlineThreshold])
    func everyFailedBodyCallKeepsTheValueBefore(inlineThreshold: Int) {
        typealias Step = FaultSweep<DiskCache, [String: Data]>.Step
        var configuration = DiskCache.Configuration()
        configuration.inlineThreshold = inlineThreshold
        // No background work during the workload: a flush (or the open's housekeeping) that
        // ran inside the counting pass and not inside a failing pass (or the other way round,
        // on a loaded machine) left calls with no fault injected. The workload's last step
        // flushes, on the cache's queue.
        configuration.flushDelay = 3600
        let sweep = FaultSweep<DiskCache, [String: Data]>(
            name: "DiskCache bodies", initial: [:],
            open: { [configuration] in
                let cache = try DiskCache(directory: $0.appendingPathComponent("cache", isDirectory: true), configuration: configuration)
                // The housekeeping an open queues runs before the workload, in every pass alike.
                cache.queue.sync {}
                return cache
            },
            close: { try? $0.close() },
            read: { cache in
                var values: [String: Data] = [:]
                for key in Self.keys { values[key] = cache.data(forKey: key) }
                return values
            },
            steps: [
                Step("set a", apply: { try $0.set(Data(repeating: 1, count: 3000), forKey: "a") }, change: { $0["a"] = Data(repeating: 1, count: 3000) }),
                Step("set b", apply: { try $0.set(Data(repeating: 2, count: 5000), forKey: "b") }, change: { $0["b"] = Data(repeating: 2, count: 5000) }),
                Step("remove a", apply: { $0.removeValue(forKey: "a") }, change: { $0["a"] = nil }),
                Step("replace b", apply: { try $0.set(Data(repeating: 3, count: 4000), forKey: "b") }, change: { $0["b"] = Data(repeating: 3, count: 4000) }),
                Step("set c", apply: { try $0.set(Data(repeating: 4, count: 100), forKey: "c") }, change: { $0["c"] = Data(repeating: 4, count: 100) }),
                Step("flush", apply: { cache in try cache.queue.sync { try cache.flushNow() } }, change: { _ in }),
            ],
            then: Step("set after", apply: { try $0.set(Data("after".utf8), forKey: "after") }, change: { $0["after"] = Data("after".utf8) })
        )
        let report = sweep.run()
        #expect(report.calls >= (inlineThreshold == 0 ? 12 : 6))
        #expect(report.injected == report.calls)
        #expect(report.problems.isEmpty, "\(report.problems.joined(separator: "\n"))")
    }
}
