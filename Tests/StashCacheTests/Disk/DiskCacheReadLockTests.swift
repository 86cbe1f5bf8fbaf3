import Foundation
@testable import StashCache
import StashCore
import StashTestSupport
import Testing

/// The writer's reader keeps one read transaction (and its WAL read lock) open between
/// flushes (``ManifestReader``), so that a lookup makes no system call and opens no
/// transaction: it must never cost the WAL its checkpoints, nor any reader a commit.
struct DiskCacheReadLockTests {
    let fixture = DiskCacheFixture()

    /// Hundreds of flushes of inline values: each flush checkpoints with the reader on its
    /// commit, then moves the reader onto the checkpointed file, so the next commit starts
    /// the WAL over and it stays the size of one flush. Without the checkpoint, or with the
    /// reader left on a commit in the WAL, it would keep every frame: about 17 MB here.
    @Test func theWALStaysSmallAcrossManyFlushes() async throws {
        let cache = try fixture.open()
        let wal = fixture.directory.appendingPathComponent("manifest.sqlite-wal")
        var largest: Int64 = 0
        for round in 0..<250 {
            for slot in 0..<4 { try cache.set(.filled(UInt8(truncatingIfNeeded: round + slot), 16_000), forKey: "k\(slot)") }
            try await cache.flush()
            #expect(cache.data(forKey: "k0") == .filled(UInt8(truncatingIfNeeded: round), 16_000))
            largest = max(largest, try FileStore.size(of: wal))
        }
        #expect(largest < 6_000_000, "the WAL grew to \(largest) bytes")
        try cache.close()
    }

    /// Every flush is seen at once by the writer's own reads (its staged changes are gone)
    /// and by a read-only view of the same folder.
    @Test func eachFlushIsSeenByTheWriterAndByAReadOnlyView() async throws {
        let cache = try fixture.open()
        try cache.set(.filled(0, 10), forKey: "key")
        try await cache.flush()
        let view = try fixture.open { $0.access = .readOnly }
        for round in 1...20 {
            try cache.set(.filled(UInt8(round), 10), forKey: "key")
            try cache.set(.filled(UInt8(round), 10), forKey: "new\(round)")
            try await cache.flush()
            #expect(cache.data(forKey: "key") == .filled(UInt8(round), 10))
            #expect(view.data(forKey: "key") == .filled(UInt8(round), 10))
            #expect(view.data(forKey: "new\(round)") == .filled(UInt8(round), 10))
        }
        try view.close()
        try cache.close()
    }

    /// A checkpoint syncs the WAL and the database file, so small flushes do not each run
    /// one: the WAL keeps their frames until it holds ``Manifest/checkpointFrames``. (Were
    /// each flush checkpointed, every commit would start the WAL over and it would never hold
    /// more than one flush's frames.)
    @Test func smallFlushesShareACheckpoint() async throws {
        let cache = try fixture.open()
        var frames: [Int] = []
        for round in 0..<10 {
            try cache.set(.filled(UInt8(round), 10), forKey: "k\(round)")
            try await cache.flush()
            frames.append(cache.manifest.walFrames.value)
        }
        #expect(zip(frames, frames.dropFirst()).allSatisfy { $0 < $1 }, "frames after each flush: \(frames)")
        #expect(frames.last! < Manifest.checkpointFrames)
        try cache.close()
    }
}
