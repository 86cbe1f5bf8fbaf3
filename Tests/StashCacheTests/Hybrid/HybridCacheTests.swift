import Foundation
import StashCache
import StashCore
import StashTestSupport
import Testing

private struct Note: Codable, Sendable, Equatable {
    var title: String
}

struct HybridCacheTests {
    let fixture = DiskCacheFixture()

    @Test func readsPromoteDiskValuesToMemory() throws {
        let disk = try fixture.open()
        try disk.set(try JSONCodec<Note>().encode(Note(title: "from disk")), forKey: "n1")
        let hybrid = HybridCache(disk: disk, codec: .json(Note.self))
        #expect(!hybrid.memory.contains("n1"))
        #expect(hybrid.value(forKey: "n1") == Note(title: "from disk"))
        #expect(hybrid.memory.contains("n1"))
        disk.removeValue(forKey: "n1")
        #expect(hybrid.value(forKey: "n1") == Note(title: "from disk"))   // served by memory now
    }

    @Test func writesReachBothSidesAndRemovalsAndClearsToo() async throws {
        let hybrid = HybridCache(disk: try fixture.open(), codec: .propertyList(Note.self))
        try hybrid.set(Note(title: "a"), forKey: "a")
        try hybrid.set(Note(title: "b"), forKey: "b", expiry: .after(60))
        #expect(hybrid.memory.value(forKey: "a") == Note(title: "a"))
        #expect(try PropertyListCodec<Note>().decode(try #require(hybrid.disk.data(forKey: "a"))) == Note(title: "a"))
        hybrid.removeValue(forKey: "a")
        #expect(!hybrid.memory.contains("a") && !hybrid.disk.contains("a") && hybrid.value(forKey: "a") == nil)
        try await hybrid.removeAll()
        #expect(!hybrid.contains("b") && hybrid.disk.count == 0)
    }

    @Test func expiryHoldsOnBothSides() throws {
        let hybrid = HybridCache(
            memory: MemoryCache(configuration: .init(clock: fixture.clock)), disk: try fixture.open(), codec: .json(Note.self)
        )
        try hybrid.set(Note(title: "short"), forKey: "s", expiry: .after(10))
        fixture.clock.advance(by: 11)
        #expect(hybrid.value(forKey: "s") == nil)
        #expect(!hybrid.disk.contains("s"))
    }

    @Test func undecodableDiskValuesAreDroppedAsMisses() throws {
        let disk = try fixture.open()
        try disk.set(Data("not json".utf8), forKey: "bad")
        let hybrid = HybridCache(disk: disk, codec: .json(Note.self))
        #expect(hybrid.value(forKey: "bad") == nil)
        #expect(!disk.contains("bad"))
    }

    @Test func customCodecsAreUsed() throws {
        struct Reversed: CacheCodec {
            func encode(_ value: String) throws -> Data { Data(String(value.reversed()).utf8) }
            func decode(_ data: Data) throws -> String { String(String(decoding: data, as: UTF8.self).reversed()) }
        }
        let disk = try fixture.open()
        let hybrid = HybridCache(disk: disk, codec: Reversed())
        try hybrid.set("stash", forKey: "word")
        #expect(disk.data(forKey: "word") == Data("hsats".utf8))
        hybrid.memory.removeAll()
        #expect(hybrid.value(forKey: "word") == "stash")
    }
}
