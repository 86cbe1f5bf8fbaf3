import Foundation
import GRDB
import StashCore

/// The manifest's tables and indexes, and the upgrade of a version 1 or 2 manifest.
///
/// Version 2 keeps no in-memory index beside it, so the manifest answers what opening, trimming
/// and statistics used to learn from loading every row:
/// - `counter` rows `count` and `bytes`, kept in the transaction of every change (a crash
///   keeps or loses both with the change), give the size of the cache at open. The flush
///   adds what its batch changed (it knows the rows each change replaces), one update per
///   flush rather than a trigger per row; a repair counts them again;
/// - `entry_expiry` (entries with an expiry) lets a sweep find expired entries without a scan;
/// - `entry_file` (file-backed entries) is what reconciliation walks at open, with `files/`;
/// - `entry_wide_key` (keys with a byte beyond ASCII) is what key normalization walks at
///   open: an ASCII key is already in NFC.
extension Manifest {
    static let schema = """
        CREATE INDEX IF NOT EXISTS entry_expiry ON entry(expires) WHERE expires IS NOT NULL;
        CREATE INDEX IF NOT EXISTS entry_file ON entry(file) WHERE file IS NOT NULL;
        CREATE INDEX IF NOT EXISTS entry_wide_key ON entry(key) WHERE \(wideKey);
        """

    /// Version 3: small values in the value log (``ValueLog``) rather than in `entry.data`.
    /// A row names its record with `loc` (segment and offset, ``ValueLocation/packed``) and
    /// `span`; `segment` holds each segment's committed end; `entry_loc` lists the rows of a
    /// segment and their live bytes for compaction (without reading the table); the counter `generation` counts the transactions that
    /// changed rows, which the ``LocationIndex`` follows. Rows of version 2 keep their value
    /// in `data` until rewritten.
    static let logSchema = """
        CREATE TABLE IF NOT EXISTS segment (id INTEGER PRIMARY KEY NOT NULL, size INTEGER NOT NULL);
        CREATE INDEX IF NOT EXISTS entry_loc ON entry(loc, span) WHERE loc IS NOT NULL;
        INSERT OR IGNORE INTO counter (name, value) VALUES ('generation', 0);
        """

    /// Whether a row's key has a byte beyond ASCII (its length in characters is not its
    /// length in bytes): the condition of `entry_wide_key`, written the same way in queries
    /// so that SQLite uses the index.
    static let wideKey = "length(key) != length(CAST(key AS BLOB))"

    /// Creates the tables of a new manifest, or upgrades a version 1 or 2 manifest in place
    /// (columns, tables and indexes added; the count and size of version 1 computed once),
    /// in one transaction.
    func createSchema() throws {
        try database.write { db in
            let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
            switch version {
            case 0:
                try db.execute(sql: """
                    CREATE TABLE entry (
                        key TEXT PRIMARY KEY NOT NULL,
                        size INTEGER NOT NULL,
                        file TEXT,
                        created REAL NOT NULL,
                        accessed REAL NOT NULL,
                        expires REAL,
                        sliding REAL,
                        metadata BLOB,
                        data BLOB,
                        loc INTEGER,
                        span INTEGER
                    );
                    CREATE TABLE counter (name TEXT PRIMARY KEY NOT NULL, value INTEGER NOT NULL);
                    """)
            case 1, 2:
                try db.execute(sql: "ALTER TABLE entry ADD COLUMN loc INTEGER; ALTER TABLE entry ADD COLUMN span INTEGER")
            default:
                return
            }
            if version < 2 {
                try db.execute(sql: """
                    INSERT OR REPLACE INTO counter (name, value) SELECT 'count', count(*) FROM entry;
                    INSERT OR REPLACE INTO counter (name, value) SELECT 'bytes', coalesce(sum(size), 0) FROM entry;
                    \(Manifest.schema)
                    """)
            }
            try db.execute(sql: """
                \(Manifest.logSchema)
                PRAGMA user_version = \(Manifest.schemaVersion);
                """)
        }
    }

    /// The columns each table of a version-3 manifest must have.
    static let tableColumns: [String: Set<String>] = [
        "entry": ["key", "size", "file", "created", "accessed", "expires", "sliding", "metadata", "data", "loc", "span"],
        "counter": ["name", "value"],
        "segment": ["id", "size"],
    ]

    /// Checks that the manifest has the tables and columns of its version.
    ///
    /// - throws: ``/StashCore/StashError/Code/corruptFile`` when one is missing (a crafted or
    ///   damaged file that claims the version): the writer's open then starts the cache over.
    static func checkTables(_ db: Database, path: String) throws {
        for (table, expected) in tableColumns {
            let columns = Set(try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table]))
            guard columns.isSuperset(of: expected) else {
                let missing = expected.subtracting(columns).sorted().joined(separator: ", ")
                throw StashError(.corruptFile, "the manifest's table \(table) lacks \(missing)", path: path)
            }
        }
    }
}
