import Foundation
import GRDB
import StashCore
import StashSQL
import StashTestSupport
import Testing

/// The `synchronous` level of the write connection StashSQL opens is the one its durability
/// promise needs (`FULL`: a commit survives a power cut), read back from the connection,
/// whatever the SQLite build's default (FULL here), GRDB's choice in WAL mode (NORMAL) and
/// the configuration's own set-up.
struct SynchronousLevelTests {
    /// `PRAGMA synchronous` of a connection: 0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA.
    static func level(_ db: Database) throws -> Int? {
        try Int.fetchOne(db, sql: "PRAGMA synchronous")
    }

    @Test func queuesAndPoolsCommitWithFullSynchronous() throws {
        let folder = TemporaryFolder("sql-synchronous")
        let sandbox = folder.sandbox()
        #expect(StashDatabase.synchronous == "FULL")
        #expect(try sandbox.databaseQueue("queue").read(Self.level) == 2)
        let pool = try sandbox.databasePool("pool")
        #expect(try pool.write(Self.level) == 2)
    }

    /// A configuration that lowers the level in its own set-up still opens at `FULL`: the
    /// level is set explicitly, after it.
    @Test func theLevelIsSetExplicitlyOverTheConfigurationsOwnSetUp() throws {
        let folder = TemporaryFolder("sql-synchronous")
        var lowered = Configuration()
        lowered.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = OFF") }
        let queue = try StashDatabase.queue(at: folder.file("lowered.sqlite"), configuration: lowered)
        #expect(try queue.read(Self.level) == 2)
        let pool = try StashDatabase.pool(at: folder.file("lowered-pool.sqlite"), configuration: lowered)
        #expect(try pool.write(Self.level) == 2)
    }
}
