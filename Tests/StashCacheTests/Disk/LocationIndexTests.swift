import Foundation
@testable import StashCache
import StashCore
import StashTestSupport
import Testing

/// The location index on a real mapped file: it answers as a dictionary of its last
/// locations would, whatever the order of changes; keys sharing a tag share a slot and never
/// answer for each other; a file is trusted only when closed cleanly at the generation asked.
struct LocationIndexTests {
    let folder = TemporaryFolder("locations")
    var path: String { folder.url.appendingPathComponent("locations").path }

    static func location(_ index: Int) -> ValueLocation {
        ValueLocation(segment: 1 + index % 3, offset: index * 64, span: 40 + index % 500)
    }

    /// The locations `index` files under `hash`, in probe order.
    static func found(_ index: LocationIndex, _ hash: UInt64) -> [ValueLocation] {
        var found: [ValueLocation] = []
        _ = index.find(hash) { found.append($0); return false }
        return found
    }

    /// Random sets, replacements and removals of 20,000 keys, through several doublings,
    /// against a dictionary: each key, hashed anew for every change and lookup (a doubling
    /// keeps the hash key), finds exactly its last location, a removed key none. Keys whose
    /// tags happen to collide are left out of the comparison (they share a slot).
    @Test func randomChangesMatchADictionary() throws {
        let seed = SeededGenerator.freshSeed(for: "LocationIndexTests.randomChangesMatchADictionary")
        var random = SeededGenerator(seed: seed)
        let index = try LocationIndex(path: path, generation: 0, hashKey: (random.next(), random.next()))
        var model: [String: ValueLocation] = [:]
        let keys = (0..<20_000).map { "https://example.com/item/\($0).json" }
        for step in 0..<120_000 {
            let key = keys[Int.random(in: 0..<(step < 40_000 ? 10_000 : keys.count), using: &random)]
            if Int.random(in: 0..<4, using: &random) == 0 {
                index.set(nil, for: index.hash(key))
                model[key] = nil
            } else {
                let location = Self.location(step)
                index.set(location, for: index.hash(key))
                model[key] = location
            }
        }
        #expect(index.capacity >= 2 * model.count)
        let tags = Dictionary(grouping: keys) { index.hash($0) >> 32 }
        let alone = keys.filter { tags[index.hash($0) >> 32]?.count == 1 }
        #expect(alone.count > keys.count - 10)
        for key in alone {
            #expect(Self.found(index, index.hash(key)) == (model[key].map { [$0] } ?? []), "seed \(seed), \(key)")
        }
        #expect(index.count <= model.count && index.count >= model.count - (keys.count - alone.count))
    }

    /// Two keys with one tag share a slot: the last filed takes it, and the other key's
    /// lookups see a location its record check refuses, then nothing, never two candidates.
    @Test func keysSharingATagShareOneSlot() throws {
        let index = try LocationIndex(path: path, generation: 0)
        let first: UInt64 = 0xABCD_EF01_0000_0001, second: UInt64 = 0xABCD_EF01_0000_0002
        index.set(Self.location(1), for: first)
        index.set(Self.location(2), for: second)
        #expect(index.count == 1)
        #expect(Self.found(index, first) == [Self.location(2)])
        index.set(nil, for: first)
        #expect(Self.found(index, second).isEmpty && index.count == 0)
    }

    /// Keys crowding one home slot: past the probe limit a key is not filed (read through the
    /// manifest), and lookups search no further than the limit.
    @Test func aCrowdedHomeFilesNoMoreThanTheProbeLimit() throws {
        let index = try LocationIndex(path: path, generation: 0)
        // Tags differing only in their low bits share a home in a table of 2^10 slots.
        let crowd = (0..<UInt64(LocationIndex.maximumProbe + 10)).map { (0x8000_0000 | $0) << 32 }
        for (number, hash) in crowd.enumerated() { index.set(Self.location(number), for: hash) }
        #expect(index.count == LocationIndex.maximumProbe)
        for (number, hash) in crowd.enumerated() {
            #expect(Self.found(index, hash) == (number < LocationIndex.maximumProbe ? [Self.location(number)] : []))
        }
        var visited = 0
        _ = index.find(crowd.last!) { _ in visited += 1; return false }
        #expect(visited == 0)
    }

    /// A clean close at a generation is trusted by an open at that generation only; an index
    /// not closed (a crashed writer) or at another generation starts empty, with a new hash key.
    @Test func onlyACleanCloseAtTheSameGenerationIsTrusted() throws {
        let index = try LocationIndex(path: path, generation: 4)
        let hash = index.hash("key")
        index.set(Self.location(7), for: hash)
        index.follow(5)
        try index.close()

        let trusted = try LocationIndex(path: path, generation: 5)
        #expect(trusted.hash("key") == hash && Self.found(trusted, hash) == [Self.location(7)])
        // Not closed: the file stays marked open, as after a crash.
        let copy = folder.url.appendingPathComponent("crashed").path
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        try trusted.close()
        #expect(try LocationIndex(path: copy, generation: 5).count == 0)

        let stale = try LocationIndex(path: path, generation: 6)
        #expect(stale.count == 0 && Self.found(stale, hash).isEmpty)
        #expect(stale.hash("key") != hash)
    }

    /// Crafted headers and sizes start an empty index, never a trap or a read past the file.
    @Test func craftedFilesStartEmpty() throws {
        let index = try LocationIndex(path: path, generation: 1)
        index.set(Self.location(1), for: 0x1234_5678_0000_0000)
        try index.close()
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        func withHeader(_ offset: Int, _ value: UInt64) -> Data {
            var data = original
            withUnsafeBytes(of: value.littleEndian) { data.replaceSubrange(offset..<offset + 8, with: $0) }
            return data
        }
        let crafted: [Data] = [
            withHeader(8, 1000), withHeader(8, 1 << 40), withHeader(8, 4096), withHeader(16, 1 << 20),
            withHeader(0, 0), original.prefix(100), original + Data(count: 16), Data(),
        ]
        for data in crafted {
            try data.write(to: URL(fileURLWithPath: path))
            let reopened = try LocationIndex(path: path, generation: 1)
            #expect(reopened.count == 0 && Self.found(reopened, 0x1234_5678_0000_0000).isEmpty)
            reopened.set(Self.location(2), for: 0x1234_5678_0000_0000)
            #expect(Self.found(reopened, 0x1234_5678_0000_0000) == [Self.location(2)])
            try reopened.close()
        }
    }

    /// A crafted table with every slot taken and a count of zero: removals end (the search
    /// for a hole stops after the table), counts never wrap, and the file is never mapped
    /// when its header lies about its size (a sparse file of a terabyte).
    @Test func aCraftedFullTableOrHugeFileNeitherHangsNorTraps() throws {
        let index = try LocationIndex(path: path, generation: 1, hashKey: (1, 2))
        try index.close()
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        let slots = (data.count - LocationIndex.headerSize) / LocationIndex.slotSize
        for slot in 0..<slots {
            let offset = LocationIndex.headerSize + slot * LocationIndex.slotSize
            withUnsafeBytes(of: UInt32(0x0123_4567)) { data.replaceSubrange(offset..<offset + 4, with: $0) }
            withUnsafeBytes(of: UInt32(100)) { data.replaceSubrange(offset + 4..<offset + 8, with: $0) }
        }
        try data.write(to: URL(fileURLWithPath: path))
        let full = try LocationIndex(path: path, generation: 1)
        #expect(full.count == 0)
        full.set(nil, for: UInt64(0x0123_4567) << 32)
        full.set(Self.location(1), for: 0x7654_3210_0000_0000)
        #expect(full.count <= full.capacity)
        try full.close()

        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: 1 << 40)
        try handle.close()
        let huge = try LocationIndex(path: path, generation: 1)
        #expect(huge.count == 0 && huge.capacity == LocationIndex.minimumCapacity)
        try huge.close()
    }
}
