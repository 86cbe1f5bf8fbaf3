import Foundation
import PostgresNIO
import StashCore
import StashPostgres
import Testing

/// The table layout's versions: a version 1 table (as Stash created it before `written_at`)
/// is carried forward, and the version 2 layout lets a rewrite of a key update its row in
/// place (HOT), which is what makes writes cost what a plain key/value upsert costs.
@Suite(.enabled(if: TestPostgres.enabled, TestPostgres.skipReason))
struct SharedCacheMigrationTests {
    @Test func aVersionOneTableIsCarriedForward() async throws {
        try await TestPostgres.withSchema { _, _, client in
            // The layout version 1 of Stash created, with one entry and one counter in it.
            for statement in [
                "CREATE TABLE stash_cache_schema (name text PRIMARY KEY, version integer NOT NULL)",
                """
                CREATE TABLE stash_cache (key_hash bigint PRIMARY KEY, key text NOT NULL, value bytea NOT NULL,
                    byte_size integer NOT NULL, created_at timestamptz NOT NULL DEFAULT now(), expires_at timestamptz)
                """,
                "CREATE INDEX stash_cache_created_at ON stash_cache (created_at)",
                "CREATE INDEX stash_cache_expires_at ON stash_cache (expires_at) WHERE expires_at IS NOT NULL",
                "INSERT INTO stash_cache_schema VALUES ('stash_cache', 1)",
            ] {
                try await client.query(PostgresQuery(unsafeSQL: statement))
            }
            let old = SharedCache(client: client, configuration: TestPostgres.configuration)
            let page = try SharedCacheProbe.row("page/old", Data("from version 1".utf8))
            let counter = try SharedCacheProbe.row("visits", Data("41".utf8))
            for row in [page, counter] {
                try await client.query("""
                    INSERT INTO stash_cache VALUES (\(row.hash), \(row.key), \(row.value), \(row.size), now() - interval '1 hour', NULL)
                    """)
            }

            try await old.migrate()
            #expect(try await old.value(forKey: "page/old") == Data("from version 1".utf8))
            #expect(try await old.increment("visits") == 42)
            var version: Int32 = 0
            for try await found in try await client.query("SELECT version FROM stash_cache_schema").decode(Int32.self) { version = found }
            #expect(version == 2)
            var carried = false
            for try await same in try await client.query(
                "SELECT written_at > created_at AND written_at > now() - interval '10 minutes' FROM stash_cache WHERE key = 'page/old'"
            ).decode(Bool.self) {
                carried = same
            }
            // The column is added without rewriting rows: an old entry's written_at is the migration's time.
            #expect(carried, "written_at of an old entry is not the migration's time")
            // Migrating again changes nothing.
            try await old.migrate()
            #expect(try await old.value(forKey: "page/old") == Data("from version 1".utf8))
        }
    }

    /// A rewrite changes no indexed column, so PostgreSQL can make it a HOT update. The
    /// table is given room on each page first (`fillfactor` 10: inserts fill a tenth of a
    /// page), so that each key's first rewrite fits beside its old version without pruning,
    /// which any other session's open snapshot in the cluster may hold back: every rewrite
    /// is then HOT, or none is when the layout rewrites an indexed column.
    @Test func rewritingAKeyIsAHOTUpdate() async throws {
        try await TestPostgres.withDatabase { url in try await TestPostgres.withCache(url: url) { cache in
            _ = try await cache.client.query("ALTER TABLE stash_cache SET (fillfactor = 10)")
            let keys = (0..<50).map { "hot/\($0)" }
            for key in keys { try await cache.set(Data(repeating: 1, count: 100), forKey: key) }
            for (index, key) in keys.enumerated() { try await cache.set(Data(repeating: UInt8(index), count: 100), forKey: key) }
            // PostgreSQL publishes a session's table statistics when its transactions end,
            // at most once a second; ask for them until the updates are counted.
            var (updates, hot) = (Int64(0), Int64(0))
            for _ in 0..<80 where updates < Int64(keys.count) {
                for try await row in try await cache.client.query(
                    "SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relid = 'stash_cache'::regclass"
                ).decode((Int64, Int64).self) {
                    (updates, hot) = row
                }
                if updates < Int64(keys.count) { try await Task.sleep(for: .milliseconds(250)) }
            }
            #expect(updates >= Int64(keys.count), "the statistics never counted the updates")
            #expect(hot == updates, "\(hot) of \(updates) updates were HOT")
            #expect(try await cache.value(forKey: "hot/7") == Data(repeating: 7, count: 100))
        } }
    }
}

/// The columns of an entry as a version 1 table held them, for writing one by hand.
private enum SharedCacheProbe {
    struct Row {
        var hash: Int64
        var key: String
        var value: ByteBuffer
        var size: Int32
    }

    static func row(_ key: String, _ value: Data) throws -> Row {
        let digest = SHA256.digest(of: key.utf8)
        var bits: UInt64 = 0
        for byte in digest.prefix(8) { bits = bits << 8 | UInt64(byte) }
        return Row(hash: Int64(bitPattern: bits), key: key, value: ByteBuffer(bytes: value), size: Int32(value.count))
    }
}
