import Foundation
import StashCache
import StashCore

/// YYCache's memory benchmark: 200,000 integer keys with 4-byte values, written, rewritten
/// and read by `MemoryCache`, Foundation's `NSCache` and a plain `Dictionary` behind a lock
/// (the ceiling: no recency, no limits). Same data, same order for all.
enum MemorySuite {
    static let suite = "memory"

    /// The workload, built once so that every implementation sees the same keys in the same order.
    struct Workload {
        let keys: [Int]
        let values: [Data]
        let randomOrder: [Int]
        let missingKeys: [Int]

        init(count: Int) {
            keys = Array(0..<count)
            values = keys.map { key in withUnsafeBytes(of: Int32(truncatingIfNeeded: key)) { Data($0) } }
            var generator = SystemRandomNumberGenerator()
            randomOrder = keys.shuffled(using: &generator)
            missingKeys = Array(count..<(2 * count))
        }
    }

    /// One implementation under test. Keys are `0..<2 * count`, so a key is also the index of
    /// its value and of any pre-built Foundation object: conversions stay out of the timings.
    struct Contender {
        var name: String
        var set: (Int) -> Void
        var get: (Int) -> Bool
    }

    @Sendable static func run(_ context: BenchContext) async throws {
        let count = context.scaled(200_000)
        let workload = Workload(count: count)
        let contenders = [
            stash(workload, limit: count * 2), nsCache(workload), dictionaryBehindALock(workload),
        ]

        measureEach(contenders, "set", context, workload) { contender in
            for key in workload.keys { contender.set(key) }
            return count
        }
        measureEach(contenders, "set-no-resize", context, workload) { contender in
            for key in workload.keys { contender.set(key) }
            return count
        }
        measureEach(contenders, "get-sequential", context, workload) { contender in
            var found = 0
            for key in workload.keys where contender.get(key) { found += 1 }
            return found
        }
        measureEach(contenders, "get-random", context, workload) { contender in
            var found = 0
            for key in workload.randomOrder where contender.get(key) { found += 1 }
            return found
        }
        measureEach(contenders, "get-miss", context, workload) { contender in
            var found = 0
            for key in workload.missingKeys where contender.get(key) { found += 1 }
            return count - found
        }
    }

    /// Times `body` for each contender in turn; `body` returns how many operations behaved as
    /// expected (hits, or misses for `get-miss`), which must be all of them.
    static func measureEach(
        _ contenders: [Contender], _ name: String, _ context: BenchContext, _ workload: Workload,
        _ body: (Contender) -> Int
    ) {
        for contender in contenders {
            var expected = 0
            context.measure(suite: suite, case: name, impl: contender.name, ops: workload.keys.count) {
                expected = body(contender)
            }
            if expected != workload.keys.count {
                context.reporter.note("warning: \(contender.name) \(name): \(expected) of \(workload.keys.count) as expected")
            }
        }
    }

    static func stash(_ workload: Workload, limit: Int) -> Contender {
        let cache = MemoryCache<Int, Data>(configuration: .init(countLimit: limit))
        let values = workload.values
        return Contender(
            name: "stash",
            set: { cache.set(values[$0], forKey: $0) },
            get: { cache.value(forKey: $0) != nil }
        )
    }

    static func nsCache(_ workload: Workload) -> Contender {
        let cache = NSCache<NSNumber, NSData>()
        let keys = (0..<(2 * workload.keys.count)).map { NSNumber(value: $0) }
        let values = workload.values.map { $0 as NSData }
        return Contender(
            name: "NSCache",
            set: { cache.setObject(values[$0], forKey: keys[$0]) },
            get: { cache.object(forKey: keys[$0]) != nil }
        )
    }

    static func dictionaryBehindALock(_ workload: Workload) -> Contender {
        let dictionary = LockedValue<[Int: Data]>([:])
        let values = workload.values
        return Contender(
            name: "dictionary+lock",
            set: { key in dictionary.withLock { $0[key] = values[key] } },
            get: { key in dictionary.withLock { $0[key] } != nil }
        )
    }
}
