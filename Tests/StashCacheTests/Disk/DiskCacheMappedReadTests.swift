import Foundation
@testable import StashCache
import StashCore
import StashTestSupport
import Testing

/// The lookup connection maps the manifest (``ManifestReader``), so that a read of a large
/// cache costs no system call; reads through the mapping still see every commit.
struct DiskCacheMappedReadTests {
    let fixture = DiskCacheFixture()

    /// A writer's and a read-only view's lookups both go through the mapping.
    @Test func lookupsMapTheManifest() async throws {
        let cache = try fixture.open()
        try cache.set(.filled(1, 10), forKey: "key")
        try await cache.flush()
        let view = try fixture.open { $0.access = .readOnly }
        #expect(ManifestReader.mappedBytes > 0)
        #expect(cache.reader.mappedSize == ManifestReader.mappedBytes)
        #expect(view.reader.mappedSize == ManifestReader.mappedBytes)
        try view.close()
        try cache.close()
    }

    /// The manifest grows past what was mapped when it was first read, its pages are
    /// checkpointed back from the WAL, and values are replaced: every read, the writer's and
    /// a read-only view's, sees the last commit.
    @Test func readsSeeEveryCommitAsTheManifestGrows() async throws {
        let cache = try fixture.open()
        let view = try fixture.open { $0.access = .readOnly }
        for round in 0..<40 {
            for index in 0..<250 {
                try cache.set(.filled(UInt8(truncatingIfNeeded: round + index), 100), forKey: "key\(index + round * 100)")
            }
            try await cache.flush()
            for index in stride(from: 0, to: 250, by: 7) {
                let expected = Data.filled(UInt8(truncatingIfNeeded: round + index), 100)
                #expect(cache.data(forKey: "key\(index + round * 100)") == expected)
                #expect(view.data(forKey: "key\(index + round * 100)") == expected)
            }
        }
        try view.close()
        try cache.close()
    }
}
