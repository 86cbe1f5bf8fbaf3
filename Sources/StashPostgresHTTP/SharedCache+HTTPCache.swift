public import StashHTTP
public import StashPostgres

/// `SharedCache` as the storage of an `HTTPCache`: several processes (several
/// `stash http-proxy` instances behind a load balancer) share one PostgreSQL table, so a
/// response stored through one is a hit on all, and an invalidation on one is seen by all.
///
/// ```swift
/// let shared = SharedCache(client: client)
/// let cache = HTTPCache(sharedStorage: shared)
/// let proxy = HTTPCachingProxy(upstream: URL(string: "http://127.0.0.1:8000")!, cache: cache)
/// ```
///
/// The requirements are the cache's own `value(forKey:)`, `set(_:forKey:expiry:)`,
/// `removeValue(forKey:)`, `removeAll(withKeyPrefix:)` and `keySizeLimit` (URLs whose
/// key would be longer are keyed by their SHA-256), under its failure policy: with the default
/// lenient policy an unreachable server makes lookups miss (the request goes to the origin)
/// and stores drop, within `SharedCache.Configuration.timeout`. Responses are kept under
/// keys starting `http-cache:`; `SharedCache.Configuration.sizeLimit` and
/// `SharedCache.Configuration.ageLimit` bound them like any other entry, and
/// `HTTPCache.removeAll()` removes those keys only, so sessions or other values on
/// the same table stay.
extension SharedCache: HTTPCache.SharedStorage {}
