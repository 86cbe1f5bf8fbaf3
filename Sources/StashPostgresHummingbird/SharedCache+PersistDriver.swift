public import Hummingbird
import StashCache
public import StashPostgres

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
/// `SharedCache.FailurePolicy`; `create` and `getWithTTL` throw
/// `StashError(.unavailable)` whatever the policy.
extension SharedCache: PersistDriver {
    public func create<Object: Codable & Sendable>(key: String, value: Object, expires: Duration?) async throws {
        guard try await insert(try JSONCodec(Object.self).encode(value), forKey: key, timeToLive: expires) else {
            throw PersistError.duplicate
        }
    }

    public func set<Object: Codable & Sendable>(key: String, value: Object, expires: Duration?) async throws {
        try await set(try JSONCodec(Object.self).encode(value), forKey: key, keepingExpiryUnless: expires)
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
        guard let (data, timeToLive) = try await valueAndTimeToLive(forKey: key) else { return nil }
        do {
            return (try JSONCodec(Object.self).decode(data), timeToLive)
        } catch {
            throw PersistError.invalidConversion
        }
    }

    public func remove(key: String) async throws {
        try await removeValue(forKey: key)
    }
}
