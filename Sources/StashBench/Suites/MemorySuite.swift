import Foundation
import StashCache
import StashCore

/// YYCache's memory benchmark: 200,000 integer keys with 4-byte values, written, rewritten
/// and read by `MemoryCache`, Foundation's `NSCache` and a plain `Dictionary` behind a lock
/// (the ceiling: no recency, no limits). Same data, same order for all; best of three rounds.
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

    /// Rounds per case; each result is the best round, which filters out the noise of a
    /// shared machine. Every round starts from fresh caches.
    static let rounds = 3

    @Sendable static func run(_ context: BenchContext) async throws {
        let count = context.scaled(200_000)
        let workload = Workload(count: count)
        var best = Timings()
        for _ in 0..<rounds {
            let contenders = [
                stash(workload, limit: count * 2), nsCache(workload), dictionaryBehindALock(workload),
            ]
            best.time(contenders, "set", context, workload) { contender in
                for key in workload.keys { contender.set(key) }
                return count
            }
            best.time(contenders, "set-no-resize", context, workload) { contender in
                for key in workload.keys { contender.set(key) }
                return count
            }
            best.time(contenders, "get-sequential", context, workload) { contender in
                var found = 0
                for key in workload.keys where contender.get(key) { found += 1 }
                return found
            }
            best.time(contenders, "get-random", context, workload) { contender in
                var found = 0
                for key in workload.randomOrder where contender.get(key) { found += 1 }
                return found
            }
            best.time(contenders, "get-miss", context, workload) { contender in
                var found = 0
                for key in workload.missingKeys where contender.get(key) { found += 1 }
                return count - found
            }
        }
        for result in best.results {
            context.reporter.record(BenchResult(suite: suite, case: result.case, impl: result.impl, ops: count, seconds: result.seconds))
        }
    }

    /// The best time of each case and implementation, in the order first measured.
    struct Timings {
        var results: [(case: String, impl: String, seconds: Double)] = []

        /// Times `body` for each contender in turn; `body` returns how many operations behaved
        /// as expected (hits, or misses for `get-miss`), which must be all of them.
        mutating func time(
            _ contenders: [Contender], _ name: String, _ context: BenchContext, _ workload: Workload,
            _ body: (Contender) -> Int
        ) {
            for contender in contenders {
                let start = DispatchTime.now().uptimeNanoseconds
                let expected = body(contender)
                let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                if expected != workload.keys.count {
                    context.reporter.note("warning: \(contender.name) \(name): \(expected) of \(workload.keys.count) as expected")
                }
                if let index = results.firstIndex(where: { $0.case == name && $0.impl == contender.name }) {
                    results[index].seconds = min(results[index].seconds, seconds)
                } else {
                    results.append((name, contender.name, seconds))
                }
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
