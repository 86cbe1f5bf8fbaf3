import Foundation
import HTTPTypes
import StashCache
import StashCore
@testable import StashHTTP
import Testing

/// A shared storage that does not say how long a key it takes gets 900 bytes, the limit
/// every storage had before it could say: URLs whose key is longer are stored under their
/// SHA-256, and found again.
struct HTTPCacheSharedStorageTests {
    /// Values in a dictionary: a storage written the way an app outside the package would,
    /// without `keySizeLimit`.
    final class DictionaryStorage: HTTPCache.SharedStorage {
        let values = LockedValue<[String: Data]>([:])
        func value(forKey key: String) async throws -> Data? { values.withLock { $0[key] } }
        func set(_ value: Data, forKey key: String, expiry: ExpiryPolicy) async throws { values.withLock { $0[key] = value } }
        func removeValue(forKey key: String) async throws { values.withLock { $0[key] = nil } }
        func removeAll(withKeyPrefix prefix: String) async throws {
            values.withLock { $0 = $0.filter { !$0.key.hasPrefix(prefix) } }
        }
    }

    @Test func aStorageThatDoesNotSayTakesKeysOf900Bytes() async throws {
        let storage = DictionaryStorage()
        #expect(storage.keySizeLimit == 900)
        let cache = HTTPCache(sharedStorage: storage)
        let send: HTTPSend = { _, _ in (HTTPResponse(status: .ok, headerFields: [.cacheControl: "max-age=600"]), Data("body".utf8)) }
        for length in [800, 950] {
            let request = HTTPRequest(method: .get, scheme: "https", authority: "origin.test", path: "/" + String(repeating: "a", count: length))
            _ = try await cache.respond(to: request, send: send)
            try await cache.flush()
            let hit = try await cache.respond(to: request, send: send)
            #expect(hit.outcome == .cache)
            #expect(hit.body == Data("body".utf8))
        }
        let keys = storage.values.withLock { Array($0.keys) }
        #expect(keys.filter { $0.hasPrefix("http-cache:sha256:") }.count == 1)
        #expect(keys.filter { $0.utf8.count <= 900 && !$0.contains("sha256") }.count == 1)
    }

    /// A storage whose removals fail, as a database that went away does.
    final class FailingRemovals: HTTPCache.SharedStorage {
        func value(forKey key: String) async throws -> Data? { nil }
        func set(_ value: Data, forKey key: String, expiry: ExpiryPolicy) async throws {}
        func removeValue(forKey key: String) async throws {}
        func removeAll(withKeyPrefix prefix: String) async throws {
            throw StashError(.io, "the storage is gone")
        }
    }

    @Test func removeAllReportsWhatTheStorageCouldNotRemove() async throws {
        let cache = HTTPCache(sharedStorage: FailingRemovals())
        let error = await #expect(throws: StashError.self) { try await cache.removeAll() }
        #expect(error?.code == .io)
        try await HTTPCache(sharedStorage: DictionaryStorage()).removeAll()
    }
}
