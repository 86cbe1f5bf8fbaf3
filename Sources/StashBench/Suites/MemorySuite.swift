import Foundation
import StashCache
import StashCore

/// YYCache's memory benchmark: 200,000 integer keys with 4-byte values, written, rewritten
/// and read by `MemoryCache`, Foundation's `NSCache` and a plain `Dictionary` behind a lock
/// (the ceiling: no recency, no limits), read by one thread and by 2 and 8 threads at once
/// (`get-random-2-threads`, `get-random-8-threads`). Same data, same order for all, through
/// ``BenchContext/compare(suite:case:_:extra:extraOf:)``: samples of at least 0.2 s, interleaved.
enum MemorySuite {
    static let suite = "memory"

    /// The workload, built once so that every implementation sees the same keys in the same order.
    struct Workload {
        let keys: [Int]
        let values: [Data]
        let randomOrder: [Int]
        let missingKeys: [Int]

        init(count: Int, context: BenchContext) {
            keys = Array(0..<count)
            values = keys.map { key in withUnsafeBytes(of: Int32(truncatingIfNeeded: key)) { Data($0) } }
            let seed = UInt64.random(in: 0...UInt64.max)
            context.reporter.note("memory: random read order from seed \(seed)")
            randomOrder = seededPermutation(count, seed: seed)
            missingKeys = Array(count..<(2 * count))
        }
    }

    /// One implementation under test. Keys are `0..<2 * count`, so a key is also the index of
    /// its value and of any pre-built Foundation object: conversions stay out of the timings.
    protocol Store: AnyObject {
        /// Empties the store (a fresh cache).
        func reset()
        func set(_ key: Int)
        func get(_ key: Int) -> Bool
    }

    static let cases = ["set", "set-no-resize", "get-sequential", "get-random", "get-random-2-threads", "get-random-8-threads", "get-miss"]

    @Sendable static func run(_ context: BenchContext) async throws {
        let count = context.scaled(200_000)
        let workload = Workload(count: count, context: context)
        let stash = StashStore(workload, limit: count * 2)
        let nsCache = NSCacheStore(workload)
        let dictionary = LockedDictionaryStore(workload)
        // The read cases read every key whether or not `set` runs first.
        for key in workload.keys {
            stash.set(key)
            nsCache.set(key)
            dictionary.set(key)
        }
        let stores: [[String: Contender]] = [
            contenders(stash, workload), contenders(nsCache, workload), contenders(dictionary, workload),
        ]
        for name in cases {
            try await context.compare(suite: suite, case: name, stores.map { $0[name]! })
        }
    }

    /// The contender of `store` in each case; generic, so that each store's calls are direct.
    /// `set` starts every repetition from an empty store and leaves it full, as the
    /// following cases expect.
    static func contenders<S: Store>(_ store: S, _ workload: Workload) -> [String: Contender] {
        let count = workload.keys.count
        let name = name(of: store)
        return [
            "set": Contender(name, prepare: { store.reset() }) {
                for key in workload.keys { store.set(key) }
                return count
            },
            "set-no-resize": Contender(name) {
                for key in workload.keys { store.set(key) }
                return count
            },
            "get-sequential": Contender(name) { try expect(count, hits(workload.keys, store), store, "get-sequential") },
            "get-random": Contender(name) { try expect(count, hits(workload.randomOrder, store), store, "get-random") },
            // Every thread reads every key in the random order, each from its own starting
            // point, all at once.
            "get-random-2-threads": Contender(name) { try expect(2 * count, concurrentHits(2, workload.randomOrder, store), store, "get-random-2-threads") },
            "get-random-8-threads": Contender(name) { try expect(8 * count, concurrentHits(8, workload.randomOrder, store), store, "get-random-8-threads") },
            "get-miss": Contender(name) { try expect(0, hits(workload.missingKeys, store), store, "get-miss") + count },
        ]
    }

    private static func concurrentHits<S: Store>(_ threads: Int, _ keys: [Int], _ store: S) -> Int {
        let shared = UncheckedStore(store)
        return onThreads(threads) { thread in
            let offset = thread * keys.count / threads
            var found = 0
            for index in keys.indices where shared.store.get(keys[(index + offset) % keys.count]) { found += 1 }
            return found
        }
    }

    /// A store read from several threads at once: every store of the suite is thread-safe.
    private struct UncheckedStore<S: Store>: @unchecked Sendable {
        let store: S
        init(_ store: S) { self.store = store }
    }

    private static func hits(_ keys: [Int], _ store: some Store) -> Int {
        var found = 0
        for key in keys where store.get(key) { found += 1 }
        return found
    }

    /// Fails the run when an implementation does not find what it should (NSCache may evict
    /// on its own: then the figure would measure misses). Returns the operations done.
    private static func expect(_ expected: Int, _ found: Int, _ store: some Store, _ name: String) throws -> Int {
        guard found == expected else {
            throw StashError(.io, "memory bench \(Self.name(of: store)) \(name): \(found) hits, expected \(expected)")
        }
        return max(expected, found)
    }

    static func name(of store: some Store) -> String {
        switch store {
        case is StashStore: return "stash"
        case is NSCacheStore: return FoundationPeer.nsCache
        default: return "dictionary+lock"
        }
    }

    final class StashStore: Store {
        let values: [Data]
        let limit: Int
        var cache: MemoryCache<Int, Data>

        init(_ workload: Workload, limit: Int) {
            values = workload.values
            self.limit = limit
            cache = MemoryCache(configuration: .init(countLimit: limit))
        }

        func reset() { cache = MemoryCache(configuration: .init(countLimit: limit)) }
        func set(_ key: Int) { cache.set(values[key], forKey: key) }
        func get(_ key: Int) -> Bool { cache.value(forKey: key) != nil }
    }

    final class NSCacheStore: Store {
        let keys: [NSNumber]
        let values: [NSData]
        var cache = NSCache<NSNumber, NSData>()

        init(_ workload: Workload) {
            keys = (0..<(2 * workload.keys.count)).map { NSNumber(value: $0) }
            values = workload.values.map { $0 as NSData }
        }

        func reset() { cache = NSCache() }
        func set(_ key: Int) { cache.setObject(values[key], forKey: keys[key]) }
        func get(_ key: Int) -> Bool { cache.object(forKey: keys[key]) != nil }
    }

    final class LockedDictionaryStore: Store {
        let values: [Data]
        var dictionary = LockedValue<[Int: Data]>([:])

        init(_ workload: Workload) { values = workload.values }

        func reset() { dictionary = LockedValue([:]) }
        func set(_ key: Int) { dictionary.withLock { $0[key] = values[key] } }
        func get(_ key: Int) -> Bool { dictionary.withLock { $0[key] } != nil }
    }
}
