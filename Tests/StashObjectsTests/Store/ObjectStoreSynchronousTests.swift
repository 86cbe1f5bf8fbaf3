import GRDB
@testable import StashObjects
import StashTestSupport
import Testing

/// The object store promises that a returned `write` survives a power cut: its connections
/// write with `synchronous = FULL` (2), read back from the store's own writer (GRDB
/// alone would leave NORMAL in WAL mode).
struct ObjectStoreSynchronousTests {
    @Test func theStoresConnectionsCommitWithFullSynchronous() throws {
        let folder = TemporaryFolder("objects-synchronous")
        let store = try folder.objectStore(ObjectSchema(Person.self))
        #expect(try store.pool.write { try Int.fetchOne($0, sql: "PRAGMA synchronous") } == 2)
        try store.close()
    }
}
