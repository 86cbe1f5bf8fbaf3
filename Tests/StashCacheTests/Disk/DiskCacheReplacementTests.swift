import Foundation
@testable import StashCache
import StashCore
import StashTestSupport
import Testing

/// A replaced file-backed value: the new bytes go to a file of their own, so the folder as
/// a crash leaves it (before the flush that commits the new row) pairs the old row with its
/// own bytes; and no replaced or removed value leaves a file behind.
struct DiskCacheReplacementTests {
    let fixture = DiskCacheFixture()

    /// The on-disk state of the cache, copied while it runs: what a crash of the process
    /// (or of the machine, nothing being fsynced) at that moment leaves.
    func crashImage(named name: String) throws -> URL {
        let image = fixture.folder.url.appendingPathComponent(name, isDirectory: true)
        try FileManager.default.copyItem(at: fixture.directory, to: image)
        return image
    }

    /// A value replaced by one of the same size with other metadata and expiry, then a crash
    /// before the flush: the reopened cache has the old value whole (bytes, metadata and
    /// expiry of the committed write), never the new bytes under the old row.
    @Test func aCrashBeforeTheFlushKeepsTheOldValueWhole() async throws {
        let cache = try fixture.open { $0.flushDelay = 3_600 }
        try cache.set(.filled(1, 50_000), forKey: "photo.jpg", expiry: .after(100), metadata: Data("old".utf8))
        try await cache.flush()
        try cache.set(.filled(2, 50_000), forKey: "photo.jpg", expiry: .after(200), metadata: Data("new".utf8))
        #expect(cache.data(forKey: "photo.jpg") == .filled(2, 50_000))
        let image = try crashImage(named: "crash")
        try cache.close()

        let reopened = try DiskCache(directory: image, configuration: fixture.configuration())
        let entry = try #require(reopened.entry(forKey: "photo.jpg"))
        #expect(entry.data == .filled(1, 50_000))
        #expect(entry.info.metadata == Data("old".utf8))
        #expect(entry.info.expiresAt == fixture.clock.now.addingTimeInterval(100))
        // The new write's file, which no committed row names, is gone.
        #expect(reopened.recovery.removedFiles == 1, "\(reopened.recovery)")
        let inspection = try ManifestInspection(directory: image)
        #expect(inspection.orphanFiles.isEmpty)
        #expect(inspection.rowsWithoutFile.isEmpty)
        try reopened.close()
    }

    /// Replacements staged before a flush, during one and after it, file-backed and inline,
    /// then a removal: once flushed, the files folder holds exactly the files the manifest
    /// names, and in the end none.
    @Test func replacedAndRemovedValuesLeaveNoFile() async throws {
        let cache = try fixture.open { $0.flushDelay = 3_600 }
        func expectOnlyNamedFiles(_ context: String) throws {
            let inspection = try ManifestInspection(directory: fixture.directory)
            #expect(inspection.orphanFiles.isEmpty, "\(context): \(inspection.orphanFiles)")
            #expect(inspection.rowsWithoutFile.isEmpty, "\(context)")
        }
        for round in 0..<3 {
            for version in 0..<4 { try cache.set(.filled(UInt8(version), 30_000 + round), forKey: "k\(round)") }
            try await cache.flush()
            try expectOnlyNamedFiles("round \(round)")
        }
        // File-backed to inline and back, with flushes between and racing the writes.
        try cache.set(.filled(7, 10), forKey: "k0")
        async let flushed: Void = cache.flush()
        try cache.set(.filled(8, 40_000), forKey: "k0")
        try cache.set(.filled(9, 40_001), forKey: "k0")
        try await flushed
        try await cache.flush()
        try expectOnlyNamedFiles("inline and back")
        #expect(cache.data(forKey: "k0") == .filled(9, 40_001))
        for round in 0..<3 { cache.removeValue(forKey: "k\(round)") }
        try await cache.flush()
        #expect(try FileStore.list(fixture.directory.appendingPathComponent("files")).isEmpty)
        try cache.close()
    }
}
