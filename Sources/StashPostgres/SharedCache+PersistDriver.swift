import Foundation
public import Hummingbird
import NIOCore
import PostgresNIO
import StashCache
import StashCore

/// Hummingbird's persistence contract, so a Hummingbird app's sessions and rate limits live
/// in the fleet's shared cache.
///
/// ```swift
/// let cache = SharedCache(client: client)
/// try await cache.migrate()
/// let router = Router(context: BasicSessionRequestContext<UUID, User>.self)
/// router.add(middleware: SessionMiddleware(storage: cache))
/// var app = Application(router: router)
/// app.addServices(client, cache)
/// ```
///
/// Objects are stored as JSON. `create` throws `PersistError.duplicate` when the key has a
/// live value; `set` without `expires` keeps the expiry of a live value; `get` of another
/// type throws `PersistError.invalidConversion`. `get`, `set` and `remove` follow the
/// ``SharedCache/FailurePolicy``; `create` and `getWithTTL` throw
/// `StashError(.unavailable)` whatever the policy.
extension SharedCache: PersistDriver {
    public func create<Object: Codable & Sendable>(key: String, value: Object, expires: Duration?) async throws {
        let stored = try SharedCacheKey(key)
        let data = try JSONCodec(Object.self).encode(value)
        try checkSize(data, key: stored)
        let statement = SharedCacheCreate(key: stored, value: ByteBuffer(bytes: data), timeToLiveMilliseconds: expires.map { max(0, $0.milliseconds) } ?? -1)
        let created = try await perform("creating '\(stored.text)'", key: stored.text, writes: true) { connection -> Bool in
            var created = false
            for try await _ in try await connection.execute(statement, logger: Self.statementLogger) { created = true }
            return created
        }
        guard created else { throw PersistError.duplicate }
        counters.recordWrites(1, bytes: data.count)
        await noteWritten(data.count)
    }

    public func set<Object: Codable & Sendable>(key: String, value: Object, expires: Duration?) async throws {
        let data = try JSONCodec(Object.self).encode(value)
        try await store(data, forKey: try SharedCacheKey(key), timeToLive: expires.map { max(0, $0.milliseconds) } ?? -1, keepTimeToLive: expires == nil)
    }

    public func get<Object: Codable & Sendable>(key: String, as: Object.Type) async throws -> Object? {
        guard let data = try await value(forKey: key) else { return nil }
        do {
            return try JSONCodec(Object.self).decode(data)
        } catch {
            throw PersistError.invalidConversion
        }
    }

    public func getWithTTL<Object: Codable & Sendable>(key: String, as: Object.Type) async throws -> (object: Object, ttl: Duration?)? {
        let statement = SharedCacheGetWithTTL(key: try SharedCacheKey(key), maximumAgeMilliseconds: maximumAgeMilliseconds)
        let found = try await perform("reading '\(statement.key.text)'") { connection -> (ByteBuffer, Int64)? in
            for try await row in try await connection.execute(statement, logger: Self.statementLogger) { return row }
            return nil
        }
        guard let (buffer, timeToLive) = found else {
            counters.recordReads(hits: 0, misses: 1, bytes: 0)
            return nil
        }
        counters.recordReads(hits: 1, misses: 0, bytes: buffer.readableBytes)
        do {
            let object = try JSONCodec(Object.self).decode(Data(buffer.readableBytesView))
            return (object, timeToLive < 0 ? nil : .milliseconds(timeToLive))
        } catch {
            throw PersistError.invalidConversion
        }
    }

    public func remove(key: String) async throws {
        try await removeValue(forKey: key)
    }
}
