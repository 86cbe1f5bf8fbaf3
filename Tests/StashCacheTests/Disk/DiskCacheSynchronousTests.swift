import GRDB
@testable import StashCache
import StashTestSupport
import Testing

/// A disk cache promises a flushed write survives a process crash, and may lose the last
/// flushes to a power cut: its manifest runs in WAL with `synchronous = NORMAL` (1), not the
/// SQLite build's default (FULL here), read back from the cache's own connection. The HTTP
/// cache keeps its responses in a `DiskCache`, so this is its level too.
struct DiskCacheSynchronousTests {
    let fixture = DiskCacheFixture()

    @Test func theManifestCommitsWithNormalSynchronousInWAL() throws {
        let cache = try fixture.open()
        let (level, journal) = try cache.manifest.database.read { db in
            (try Int.fetchOne(db, sql: "PRAGMA synchronous"), try String.fetchOne(db, sql: "PRAGMA journal_mode"))
        }
        #expect(level == 1)
        #expect(journal == "wal")
        try cache.close()
    }
}
