import Foundation
@testable import StashCache
import StashTestSupport
import Testing

/// `MemoryCacheTable`, the open-addressing table under `MemoryCache`, against a
/// `Dictionary` doing the same operations: random runs, keys that collide on purpose (so
/// that removals shift long runs back across the end of the buckets), and copies that must
/// not see each other's changes.
struct MemoryCacheTableTests {
    /// A key whose hash is chosen by the test: `bucket` keys share a starting bucket.
    struct CollidingKey: Hashable {
        var id: Int
        var bucket: Int

        static func == (a: CollidingKey, b: CollidingKey) -> Bool { a.id == b.id }
        func hash(into hasher: inout Hasher) { hasher.combine(bucket) }
    }

    /// Every key of the model is in the table with its item, and nothing else is.
    func expectSame<Key: Hashable>(_ table: MemoryCacheTable<Key, Int>, _ model: [Key: Int], _ context: String) {
        #expect(table.count == model.count, "\(context)")
        for (key, value) in model where table[key] != value {
            Issue.record("\(context): \(key) is \(String(describing: table[key])), expected \(value)")
            return
        }
        #expect(Set(table.keys) == Set(model.keys), "\(context)")
    }

    @Test func randomInsertsUpdatesAndRemovalsMatchADictionary() {
        let seed = SeededGenerator.freshSeed(for: "MemoryCacheTableTests.randomInsertsUpdatesAndRemovalsMatchADictionary")
        var random = SeededGenerator(seed: seed)
        var table = MemoryCacheTable<Int, Int>()
        var model: [Int: Int] = [:]
        for step in 0..<60_000 {
            let key = Int.random(in: 0..<3_000, using: &random)
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<5:
                if let position = table.find(key) {
                    table[itemAt: position] = step
                } else {
                    table.insert(step, forKey: key)
                }
                model[key] = step
            case 5..<9:
                #expect(table.removeValue(forKey: key) == model.removeValue(forKey: key), "step \(step)")
            default:
                if step % 5_000 == 0 { table.compact() }
                #expect(table[key] == model[key], "step \(step)")
            }
        }
        expectSame(table, model, "seed \(seed)")
        table.removeAll()
        #expect(table.count == 0 && table.keys.isEmpty)
    }

    /// Runs of keys that start in the same few buckets, removed in a random order: each
    /// removal must leave every other key reachable (a bad backward shift strands a key
    /// behind an empty bucket). Buckets near the end make runs wrap around to the start.
    @Test func removalsInCollidingRunsKeepEveryKeyReachable() {
        let seed = SeededGenerator.freshSeed(for: "MemoryCacheTableTests.removalsInCollidingRunsKeepEveryKeyReachable")
        var random = SeededGenerator(seed: seed)
        for round in 0..<200 {
            var table = MemoryCacheTable<CollidingKey, Int>()
            var model: [CollidingKey: Int] = [:]
            let count = Int.random(in: 1...40, using: &random)
            for id in 0..<count {
                // A few hash values only, so that runs are long and interleaved.
                let key = CollidingKey(id: id, bucket: Int.random(in: 0..<4, using: &random))
                table.insert(id, forKey: key)
                model[key] = id
            }
            for key in model.keys.shuffled(using: &random) {
                #expect(table.removeValue(forKey: key) == model.removeValue(forKey: key))
                expectSame(table, model, "seed \(seed) round \(round)")
            }
        }
    }

    /// The table fills up to seven eighths of its buckets before it grows (the footprint a
    /// random read in a large cache depends on), and always keeps an empty bucket, where
    /// every probe stops.
    @Test func growsPastSevenEighthsFullAndKeepsAnEmptyBucket() {
        #expect(MemoryCacheTable<Int, Int>.capacity(for: 200_000) == 262_144)
        #expect(MemoryCacheTable<Int, Int>.capacity(for: 229_376) == 262_144)
        #expect(MemoryCacheTable<Int, Int>.capacity(for: 229_377) == 524_288)
        for count in 0...5_000 {
            let capacity = MemoryCacheTable<Int, Int>.capacity(for: count)
            #expect(capacity.nonzeroBitCount == 1 && count < capacity && count <= capacity - capacity / 8)
        }
        var table = MemoryCacheTable<Int, Int>()
        for key in 0..<7 { table.insert(key, forKey: key) }
        #expect(table.storage.capacity == 8 && table.find(100) == nil)
        table.insert(7, forKey: 7)
        #expect(table.storage.capacity == 16 && (0..<8).allSatisfy { table[$0] == $0 })
    }

    /// A copy is a value: changing one (an update in place, an insertion that grows it, a
    /// removal that shifts buckets) leaves the other as it was.
    @Test func aCopyDoesNotSeeTheOriginalsChanges() {
        var original = MemoryCacheTable<Int, Int>()
        for key in 0..<100 { original.insert(key, forKey: key) }
        let copy = original
        original[itemAt: original.find(7)!] = -7
        _ = original.removeValue(forKey: 8)
        for key in 100..<1_000 { original.insert(key, forKey: key) }
        #expect(copy.count == 100 && copy[7] == 7 && copy[8] == 8 && copy[500] == nil)
        #expect(original.count == 999 && original[7] == -7 && original[8] == nil && original[500] == 500)

        var second = copy
        _ = second.removeValue(forKey: 1)
        #expect(copy[1] == 1 && second[1] == nil)
    }

    /// On Linux, a bucket array of ``MemoryCacheTable/hugePageBytes`` or more starts on a 2 MB
    /// boundary and is marked for transparent huge pages (`hg` in `/proc/self/smaps`), and so
    /// is the copy a shared table makes before a change; either still works as any table.
    @Test func largeBucketArraysAskForHugePages() throws {
        #if os(Linux)
        typealias Table = MemoryCacheTable<Int, Int>
        var table = Table()
        table.reserve(Table.hugePageBytes / MemoryLayout<Table.Bucket>.stride)
        for key in 0..<100_000 { table.insert(key, forKey: key) }
        let shared = table
        table.insert(-1, forKey: -1)
        let kernelHasHugePages = FileManager.default.fileExists(atPath: "/sys/kernel/mm/transparent_hugepage/enabled")
        for (name, storage) in [("table", table.storage), ("copy before a change", shared.storage)] {
            let address = UInt(bitPattern: storage.buckets)
            #expect(address % (2 << 20) == 0, "\(name) at \(String(address, radix: 16))")
            let flags = try #require(try Self.vmFlags(at: address), "\(name): no mapping holds it")
            // A kernel built without transparent huge pages refuses the advice.
            #expect(!kernelHasHugePages || flags.contains("hg"), "\(name): VmFlags \(flags)")
        }
        #expect(table.count == 100_001 && shared.count == 100_000 && table[-1] == -1 && shared[-1] == nil)
        #expect((0..<100_000).allSatisfy { table[$0] == $0 && shared[$0] == $0 })
        #endif
    }

    /// The `VmFlags` of the mapping of this process that holds `address`, if any does.
    static func vmFlags(at address: UInt) throws -> [Substring]? {
        // Read to the end: a file of /proc has no size, and a one-read `String(contentsOfFile:)` stops short.
        let file = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/smaps"))
        let smaps = String(decoding: try file.readToEnd() ?? Data(), as: UTF8.self)
        var inside = false
        for line in smaps.split(separator: "\n") {
            if let range = line.split(separator: " ").first, range.contains("-"), !range.hasSuffix(":") {
                let bounds = range.split(separator: "-").compactMap { UInt($0, radix: 16) }
                inside = bounds.count == 2 && bounds[0] <= address && address < bounds[1]
            } else if inside, line.hasPrefix("VmFlags:") {
                return line.split(separator: " ").dropFirst().map { $0 }
            }
        }
        return nil
    }
}
