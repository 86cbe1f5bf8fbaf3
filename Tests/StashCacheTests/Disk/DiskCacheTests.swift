import Foundation
import StashCache
import StashCore
import StashTestSupport
import Testing

struct DiskCacheTests {
    @Test func storesSmallValuesInlineAndLargeOnesInFiles() async throws {
        let fixture = DiskCacheFixture()
        let cache = try fixture.open { $0.inlineThreshold = 100 }
        try cache.set(.filled(1, 100), forKey: "small")
        try cache.set(.filled(2, 101), forKey: "https://example.com/photos/large.PNG?size=2")
        #expect(cache.data(forKey: "small") == .filled(1, 100))
        #expect(cache.data(forKey: "https://example.com/photos/large.PNG?size=2") == .filled(2, 101))
        #expect(cache.info(forKey: "small")?.storage == .inline)
        #expect(cache.fileURL(for: "small") == nil)
        let url = try #require(cache.fileURL(for: "https://example.com/photos/large.PNG?size=2"))
        #expect(url.lastPathComponent.hasPrefix(SHA256.hexDigest(of: "https://example.com/photos/large.PNG?size=2") + "-"))
        #expect(url.pathExtension == "png")
        #expect(try FileStore.read(url) == .filled(2, 101))
        try await cache.flush()
        let inspection = try ManifestInspection(directory: fixture.directory)
        #expect(inspection.inlineRows == 1)
        #expect(inspection.fileRows == [url.lastPathComponent: 101])
    }

    @Test func zeroThresholdPutsEveryValueInAFile() throws {
        let fixture = DiskCacheFixture()
        let cache = try fixture.open { $0.inlineThreshold = 0 }
        try cache.set(.filled(1, 3), forKey: "tiny")
        #expect(cache.info(forKey: "tiny")?.storage == .file)
        #expect(cache.data(forKey: "tiny") == .filled(1, 3))
    }

    @Test func replacingAFileBackedValueWithAnInlineOneDeletesTheFile() async throws {
        let fixture = DiskCacheFixture()
        let cache = try fixture.open { $0.inlineThreshold = 10 }
        try cache.set(.filled(1, 50), forKey: "k")
        let url = try #require(cache.fileURL(for: "k"))
        try await cache.flush()
        try cache.set(.filled(2, 5), forKey: "k")
        #expect(cache.data(forKey: "k") == .filled(2, 5))
        try await cache.flush()
        #expect(!FileStore.exists(url))
        try cache.set(.filled(3, 60), forKey: "k")
        cache.removeValue(forKey: "k")
        try cache.set(.filled(4, 70), forKey: "k")
        try await cache.flush()
        #expect(cache.data(forKey: "k") == .filled(4, 70))
        // Each write has a file of its own.
        let latest = try #require(cache.fileURL(for: "k"))
        #expect(latest != url && !FileStore.exists(url))
        #expect(try FileStore.read(latest) == .filled(4, 70))
        cache.removeValue(forKey: "k")
        #expect(cache.data(forKey: "k") == nil)
        try await cache.flush()
        #expect(!FileStore.exists(latest))
        let inspection = try ManifestInspection(directory: fixture.directory)
        #expect(inspection.fileRows.isEmpty && inspection.files.isEmpty && inspection.inlineRows == 0)
    }

    @Test func keepsValuesDatesAndMetadataAcrossReopen() throws {
        let fixture = DiskCacheFixture()
        let cache = try fixture.open { $0.inlineThreshold = 10 }
        try cache.set(.filled(1, 5), forKey: "inline", metadata: Data("etag-1".utf8))
        try cache.set(.filled(2, 500), forKey: "file", expiry: .after(60), metadata: Data("etag-2".utf8))
        try cache.close()
        fixture.clock.advance(by: 10)
        let reopened = try fixture.open { $0.inlineThreshold = 10 }
        #expect(reopened.recovery.isClean)
        let inline = try #require(reopened.entry(forKey: "inline"))
        #expect(inline.data == .filled(1, 5) && inline.info.metadata == Data("etag-1".utf8))
        let file = try #require(reopened.entry(forKey: "file"))
        #expect(file.data == .filled(2, 500) && file.info.metadata == Data("etag-2".utf8))
        #expect(file.info.createdAt == Date(timeIntervalSince1970: 1_000_000))
        #expect(file.info.lastAccessedAt == Date(timeIntervalSince1970: 1_000_010))
        #expect(file.info.expiresAt == Date(timeIntervalSince1970: 1_000_060))
        #expect(reopened.count == 2 && reopened.totalSize == 505)
    }

    @Test func rejectsBadKeysAndOversizedMetadata() throws {
        let cache = try DiskCacheFixture().open()
        expectError(.invalidKey) { try cache.set(Data(), forKey: "") }
        expectError(.invalidKey) { try cache.set(Data(), forKey: String(repeating: "k", count: 5000)) }
        expectError(.unsupportedValue) {
            try cache.set(Data(), forKey: "k", metadata: .filled(0, DiskCache.maxMetadataSize + 1))
        }
        #expect(cache.count == 0)
    }

    @Test func aClosedCacheReadsNothingAndRefusesWrites() throws {
        let cache = try DiskCacheFixture().open()
        try cache.set(Data("v".utf8), forKey: "k")
        try cache.close()
        #expect(cache.data(forKey: "k") == nil)
        expectError(.closed) { try cache.set(Data(), forKey: "k") }
    }

    @Test func countsHitsAndMissesAcrossLaunches() async throws {
        let fixture = DiskCacheFixture()
        let cache = try fixture.open()
        try cache.set(Data("v".utf8), forKey: "k")
        _ = cache.data(forKey: "k")
        _ = cache.data(forKey: "k")
        _ = cache.data(forKey: "nope")
        try cache.close()
        let reopened = try fixture.open()
        let statistics = try reopened.statistics()
        #expect(statistics.hits == 2 && statistics.misses == 1)
        #expect(statistics.count == 1 && statistics.inlineCount == 1 && statistics.fileCount == 0)
        #expect(statistics.oldest == Date(timeIntervalSince1970: 1_000_000))
    }

    @Test func onlyCachesAndTemporaryFoldersAreAccepted() throws {
        let folder = TemporaryFolder("diskcache-location")
        let sandbox = folder.sandbox()
        expectError(.unsupportedLocation) { _ = try DiskCache(name: "c", in: sandbox, folder: .documents) }
        let cache = try DiskCache(name: "c", in: sandbox, folder: .caches)
        #expect(cache.directory.path.hasPrefix(sandbox.caches.path))
        #expect(BackupExclusion.isMarked(cache.directory))
    }

    @Test func removeAllWhereRemovesOnlyMatchingKeys() async throws {
        let cache = try DiskCacheFixture().open { $0.inlineThreshold = 4 }
        for key in ["a/1", "a/2", "b/1"] { try cache.set(.filled(1, 8), forKey: key) }
        let removed = try await cache.removeAll { $0.hasPrefix("a/") }
        #expect(removed == 2)
        #expect(try cache.entries().map(\.key) == ["b/1"])
        try await cache.removeAll()
        #expect(cache.count == 0 && cache.totalSize == 0)
    }

    @Test func manyTasksMixingReadsWritesAndRemovalsLeaveAConsistentCache() async throws {
        let fixture = DiskCacheFixture()
        let cache = try fixture.open { $0.inlineThreshold = 64; $0.flushDelay = 0.001 }
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<4 {
                group.addTask {
                    for index in 0..<300 {
                        let key = "k\((index * 7 + task) % 40)"
                        switch index % 4 {
                        case 0, 1: try? cache.set(.filled(UInt8(index % 256), index % 3 == 0 ? 200 : 20), forKey: key)
                        case 2: cache.removeValue(forKey: key)
                        default:
                            if let data = cache.data(forKey: key) { #expect(Set(data).count == 1) }
                        }
                    }
                }
            }
        }
        let entries = try cache.entries()
        #expect(cache.totalSize == entries.reduce(0) { $0 + $1.size })
        for entry in entries { #expect(cache.data(forKey: entry.key)?.count == entry.size) }
        try cache.close()
        let inspection = try ManifestInspection(directory: fixture.directory)
        #expect(inspection.rowsWithoutFile.isEmpty && inspection.orphanFiles.isEmpty)
        #expect(inspection.fileRows.count + inspection.inlineRows == entries.count)
    }
}
