import Logging
import PostgresNIO
import StashCore

extension SharedCache {
    /// The version of the table layout this build writes and reads. Version 2 added
    /// `written_at`: a write no longer rewrites the indexed `created_at`, so PostgreSQL
    /// updates the row in place (a HOT update, no new index entries).
    static let schemaVersion: Int32 = 2

    /// Creates the `stash_cache` table and its indexes when they do not exist, and records
    /// the layout version in `stash_cache_schema`. Safe to call from every instance at every
    /// start, concurrently (a PostgreSQL advisory lock serializes it).
    ///
    /// ```swift
    /// try await cache.migrate()
    /// ```
    ///
    /// Columns: `key_hash bigint` (first 8 bytes of the key's SHA-256, primary key), `key text`,
    /// `value bytea`, `byte_size integer`, `created_at timestamptz` (the entry's place in the
    /// expiry order: when it was stored, moved forward by a later write at most once a minute;
    /// indexed: trimming removes the oldest first), `written_at timestamptz` (the last
    /// write, which ``Configuration/ageLimit`` counts from; not indexed, so that a write
    /// is a HOT update), `expires_at timestamptz` (nullable, indexed). With
    /// ``Configuration/unlogged`` the table is `UNLOGGED`. A table of layout version 1 is
    /// carried forward (its `written_at` is its `created_at`), in one transaction.
    ///
    /// - throws: `StashError(.unsupportedVersion)` when the table was made by a newer Stash;
    ///   `StashError(.unavailable)` when PostgreSQL fails (whatever the policy).
    public func migrate() async throws {
        let logger = configuration.logger
        let unlogged = configuration.unlogged
        let timeout = configuration.timeout * 10
        do {
            try await perform("migrating the shared cache table", timeout: timeout, transaction: true) { connection in
                do {
                    try await connection.query("SELECT pg_advisory_xact_lock(\(Self.tableLockClass), hashtext(current_schema() || '.stash_cache.migration'))", logger: logger).drain()
                    try await connection.query(
                        "CREATE TABLE IF NOT EXISTS stash_cache_schema (name text PRIMARY KEY, version integer NOT NULL)",
                        logger: logger
                    ).drain()
                    var found: Int32?
                    for try await version in try await connection.query(
                        "SELECT version FROM stash_cache_schema WHERE name = 'stash_cache'", logger: logger
                    ).decode(Int32.self) {
                        found = version
                    }
                    if let found, found > Self.schemaVersion {
                        throw StashError(
                            .unsupportedVersion,
                            "the stash_cache table has layout version \(found); this build of Stash reads version \(Self.schemaVersion)"
                        )
                    }
                    if found == 1 {
                        for statement in [
                            // One metadata-only change (a stable default, PostgreSQL 11+): no row is
                            // rewritten under the exclusive lock, so a large table migrates at once;
                            // existing entries count their maximum age from the migration.
                            "ALTER TABLE stash_cache ADD COLUMN written_at timestamptz NOT NULL DEFAULT now()",
                            "UPDATE stash_cache_schema SET version = \(Self.schemaVersion) WHERE name = 'stash_cache'",
                        ] {
                            try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger).drain()
                        }
                        return
                    }
                    guard found == nil else { return }
                    let kind = unlogged ? "UNLOGGED TABLE" : "TABLE"
                    try await connection.query(PostgresQuery(unsafeSQL: """
                        CREATE \(kind) IF NOT EXISTS stash_cache (
                            key_hash bigint PRIMARY KEY,
                            key text NOT NULL,
                            value bytea NOT NULL,
                            byte_size integer NOT NULL,
                            created_at timestamptz NOT NULL DEFAULT now(),
                            written_at timestamptz NOT NULL DEFAULT now(),
                            expires_at timestamptz
                        )
                        """), logger: logger).drain()
                    try await connection.query(
                        "CREATE INDEX IF NOT EXISTS stash_cache_created_at ON stash_cache (created_at)", logger: logger
                    ).drain()
                    try await connection.query(
                        "CREATE INDEX IF NOT EXISTS stash_cache_expires_at ON stash_cache (expires_at) WHERE expires_at IS NOT NULL",
                        logger: logger
                    ).drain()
                    try await connection.query(
                        "INSERT INTO stash_cache_schema (name, version) VALUES ('stash_cache', \(Self.schemaVersion))", logger: logger
                    ).drain()
                }
            }
        } catch let error as StashError {
            throw error
        } catch {
            throw StashError(.unavailable, "migrating the shared cache table: \(String(reflecting: error))")
        }
    }

    /// The first half of the advisory lock keys of a table ("Stsh"); the second half hashes
    /// the schema and the purpose, so that caches in other schemas never wait on each other.
    static let tableLockClass: Int32 = 0x5374_7368
}
