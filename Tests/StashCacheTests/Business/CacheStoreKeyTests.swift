import Foundation
import StashCache
import StashCore
import StashTestSupport
import Testing

/// The key identity rule in a cache store: names, scopes and parameters that differ only in
/// Unicode normalization are one key before and after a reopen; NUL is refused.
struct CacheStoreKeyTests {
    let folder = TemporaryFolder("cachestore-keys")

    func makeStore() throws -> CacheStore {
        try CacheStore(sandbox: folder.sandbox(), configuration: DiskCache.Configuration())
    }

    @Test(arguments: [("caf\u{E9}", "cafe\u{301}"), ("\u{C5}", "\u{212B}")])
    func canonicallyEquivalentKeysAreOneKeyAcrossReopen(pair: (String, String)) throws {
        let store = try makeStore()
        try store.set(["first"], for: CacheKey<[String]>(pair.0, scope: .user(pair.0)))
        try store.set(["second"], for: CacheKey<[String]>(pair.1, scope: .user(pair.1)))
        try store.set(["other"], for: CacheKey<[String]>("other"))
        #expect(try store.value(for: CacheKey<[String]>(pair.0, scope: .user(pair.0)))?.value == ["second"])
        try store.close()

        let reopened = try makeStore()
        #expect(try reopened.value(for: CacheKey<[String]>(pair.0, scope: .user(pair.0)))?.value == ["second"])
        #expect(try reopened.value(for: CacheKey<[String]>(pair.1, scope: .user(pair.1)))?.value == ["second"])
        #expect(try reopened.value(for: CacheKey<[String]>("other"))?.value == ["other"])
        #expect(reopened.size(of: .user(pair.1)) == reopened.size(of: .user(pair.0)))
        #expect(reopened.size(of: .user(pair.1)) > 0)
        try reopened.close()
    }

    @Test func keysWithNULAreRefused() throws {
        let store = try makeStore()
        try store.set(["kept"], for: CacheKey<[String]>("nul"))
        expectError(.invalidKey) { try store.set(["lost"], for: CacheKey<[String]>("nul\0A")) }
        expectError(.invalidKey) { _ = try store.value(for: CacheKey<[String]>("nul\0A")) }
        try store.close()
        let reopened = try makeStore()
        #expect(try reopened.value(for: CacheKey<[String]>("nul"))?.value == ["kept"])
        try reopened.close()
    }
}
