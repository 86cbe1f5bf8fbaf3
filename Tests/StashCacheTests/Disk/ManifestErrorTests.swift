import Foundation
import GRDB
@testable import StashCache
import StashCore
import StashTestSupport
import Testing

/// Which of SQLite's errors make the writer start a cache over: only those that say the
/// manifest is damaged, or a manifest whose tables are not a cache's.
struct ManifestErrorTests {
    /// SQLite's generic error (a statement it cannot run now, a crafted trigger's unknown
    /// function) is an I/O error to the cache, never a damaged manifest: the writer keeps
    /// the cache and reports it.
    @Test func aGenericSQLiteErrorIsNotADamagedManifest() {
        let generic = Manifest.stashError(DatabaseError(resultCode: .SQLITE_ERROR, message: "no such function: f"), path: "manifest.sqlite")
        #expect(generic.code == .io)
        for damaged in [ResultCode.SQLITE_CORRUPT, .SQLITE_NOTADB, .SQLITE_FORMAT] {
            #expect(Manifest.stashError(DatabaseError(resultCode: damaged), path: "manifest.sqlite").code == .corruptFile, "\(damaged)")
        }
    }

    /// A manifest that claims the current version but lacks a table or a column the cache
    /// needs is found at open, and the cache starts over.
    @Test(arguments: ["DROP TABLE segment", "DROP INDEX entry_loc; ALTER TABLE entry DROP COLUMN span", "DROP TABLE counter"])
    func aManifestWithoutTheCachesTablesIsRebuilt(_ damage: String) async throws {
        let fixture = DiskCacheFixture()
        let cache = try fixture.open()
        try cache.set(.filled(1, 100), forKey: "kept")
        try cache.close()
        let database = try DatabaseQueue(path: fixture.directory.appendingPathComponent("manifest.sqlite").path)
        try await database.write { try $0.execute(sql: damage) }
        try database.close()
        let reopened = try fixture.open()
        #expect(reopened.recovery.rebuiltManifest, "\(reopened.recovery)")
        #expect(reopened.data(forKey: "kept") == nil)
        try reopened.set(.filled(2, 100), forKey: "after")
        try await reopened.flush()
        #expect(reopened.data(forKey: "after") == .filled(2, 100))
        try reopened.close()
    }
}
