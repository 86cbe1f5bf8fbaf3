public import Foundation
public import StashCore

extension HTTPCache {
    /// Storage that several ``HTTPCache``s share, in several processes or on several
    /// machines, so that a response stored through one is a hit on all of them and an
    /// invalidation on one is seen by all. StashPostgres' `SharedCache` is one:
    ///
    /// ```swift
    /// import StashPostgres
    /// import StashPostgresHTTP // SharedCache: HTTPCache.SharedStorage
    ///
    /// let shared = SharedCache(client: client)            // one PostgreSQL table for the fleet
    /// let cache = HTTPCache(sharedStorage: shared)        // mode .shared, as a proxy needs
    /// let proxy = HTTPCachingProxy(upstream: origin, cache: cache)
    /// ```
    ///
    /// Any store of bytes by key that several processes reach can conform (Redis, memcached):
    /// the requirements are `SharedCache`'s own methods and key limit. The cache keeps the
    /// variants of one URL (its `Vary` selections) as one value under a key that starts
    /// `http-cache:`, encoded in the same binary form as its disk entries and holding the
    /// full URL, which is checked on every read (a URL whose key would be longer than
    /// ``keySizeLimit`` is keyed by its SHA-256).
    ///
    /// Errors the storage throws reach the cache's callers only from ``HTTPCache/removeAll()``
    /// (a removal the caller asked for): a failed read is a miss, a failed write leaves the
    /// response unstored (the storage counts and logs its own
    /// failures, see `SharedCache.statistics`).
    public protocol SharedStorage: Sendable {
        /// The bytes stored for `key`, or `nil`.
        ///
        /// ```swift
        /// let stored = try await storage.value(forKey: "http-cache:https://example.com/")
        /// ```
        func value(forKey key: String) async throws -> Data?
        /// Stores `value` for `key`, replacing what was there, for every cache on the storage.
        /// The cache passes `.never`: the storage's own limits decide how long responses stay.
        ///
        /// ```swift
        /// try await storage.set(encoded, forKey: "http-cache:https://example.com/", expiry: .never)
        /// ```
        func set(_ value: Data, forKey key: String, expiry: ExpiryPolicy) async throws
        /// Removes the value of `key` for every cache on the storage.
        ///
        /// ```swift
        /// try await storage.removeValue(forKey: "http-cache:https://example.com/")
        /// ```
        func removeValue(forKey key: String) async throws
        /// Removes every value whose key starts with `prefix`, for every cache on the storage
        /// (``HTTPCache/removeAll()`` passes `http-cache:`); other values stay.
        ///
        /// ```swift
        /// try await storage.removeAll(withKeyPrefix: "http-cache:")
        /// ```
        func removeAll(withKeyPrefix prefix: String) async throws
        /// The longest key the storage takes, in bytes of UTF-8 (`SharedCache`: 1024; 900 when
        /// a storage does not say, the limit every storage had before it could).
        ///
        /// ```swift
        /// let fits = key.utf8.count <= storage.keySizeLimit
        /// ```
        var keySizeLimit: Int { get }
    }

    /// A cache whose responses live only in `sharedStorage`, with no copy in this process.
    ///
    /// ```swift
    /// let cache = HTTPCache(sharedStorage: SharedCache(client: client))
    /// let answer = try await cache.respond(to: request) { request, body in
    ///     try await transport.send(request, body: body)
    /// }
    /// ```
    ///
    /// No response is kept in memory: a local copy would go on serving a response that
    /// another instance has invalidated (an unsafe method, RFC 9111 §4.4). Every lookup is
    /// one read of the storage; a miss whose lookup found no other variant of the URL then
    /// stores with one write (with other variants it reads them again first, so as not to
    /// write back what an invalidation removed during the trip to the origin); concurrent
    /// identical misses of this process still share one trip to the origin. Writes of one
    /// URL from several instances at once may keep only the last variant written.
    ///
    /// The synchronous ``cachedResponse(for:)`` cannot wait for the storage and answers
    /// `nil`; ask ``respond(to:body:policy:revalidatesInBackground:send:)`` with a request
    /// carrying `Cache-Control: only-if-cached` instead (a hit, or `504`).
    /// ``storeResponse(_:body:for:requestTime:responseTime:)`` and
    /// ``removeResponses(for:)`` write in the background; ``flush()`` waits for them.
    ///
    /// - Age: each instance computes `Age` from the times stored with the response (RFC 9111
    ///   §4.2.3), so instances on several machines need synchronized clocks (NTP).
    /// - Races: a store that runs while another request (of any instance) invalidates or
    ///   stores the same URL may bring back, or drop, the other `Vary` variants of the URL as
    ///   its lookup read them an origin trip earlier (one variant per URL, the common case, is
    ///   never brought back).
    /// - parameters:
    ///   - sharedStorage: Where responses are kept.
    ///   - mode: ``HTTPCacheMode/shared`` (the default, for a proxy fleet) or
    ///     ``HTTPCacheMode/private``.
    ///   - collapsesRequests: Let concurrent identical requests of this process wait for
    ///     one origin trip.
    ///   - storesResponsesThatSetCookies: In ``HTTPCacheMode/shared`` mode, store responses
    ///     carrying `Set-Cookie` (without that field); see ``storesResponsesThatSetCookies``.
    ///   - clock: The source of "now" for freshness and age.
    public convenience init(
        sharedStorage: any SharedStorage, mode: HTTPCacheMode = .shared, collapsesRequests: Bool = true,
        storesResponsesThatSetCookies: Bool = false, clock: any StashClock = SystemClock()
    ) {
        self.init(
            storage: .shared(sharedStorage), mode: mode, collapsesRequests: collapsesRequests,
            storesResponsesThatSetCookies: storesResponsesThatSetCookies, clock: clock
        )
    }

    /// The prefix of every key the cache writes in shared storage.
    static let sharedKeyPrefix = "http-cache:"

    /// The storage key of `key`'s variants: the URL's own key when the storage takes it,
    /// else its SHA-256.
    static func sharedKey(_ key: PrimaryCacheKey, in storage: any SharedStorage) -> String {
        let plain = sharedKeyPrefix + key.storageKey
        return plain.utf8.count <= storage.keySizeLimit ? plain : sharedKeyPrefix + "sha256:" + SHA256.hexDigest(of: key.storageKey)
    }

    /// The variants of `key` in `storage`; empty on a miss, on a failure, or when the value
    /// found is not this URL's (a SHA-256 key collision) or does not decode. A value in a
    /// format this version writes that does not decode (damaged, or written by hand into the
    /// table) is removed before the answer, so that no lookup of the URL reads it again. A
    /// value of another format is left in place (it may come from a newer Stash on another
    /// instance during a rolling deploy); the next store of the URL replaces it.
    func sharedVariants(for key: PrimaryCacheKey, in storage: any SharedStorage) async -> [StoredResponse] {
        let name = Self.sharedKey(key, in: storage)
        guard let data = try? await storage.value(forKey: name) else { return [] }
        guard let decoded = try? StoredResponseCoding.decode(data) else {
            if StoredResponseCoding.isKnownFormat(data) { try? await storage.removeValue(forKey: name) }
            return []
        }
        return decoded.key == key.storageKey ? decoded.variants : []
    }

    /// Replaces the variants of `key` in `storage`; empty removes them. A write the storage
    /// throws for (a value over its size limit; with `SharedCache`'s lenient policy an
    /// unreachable server is not thrown) also tries to remove the older value, so that it
    /// cannot be served in place of the new one.
    func setSharedVariants(_ variants: [StoredResponse], for key: PrimaryCacheKey, in storage: any SharedStorage) async {
        let name = Self.sharedKey(key, in: storage)
        guard !variants.isEmpty else {
            try? await storage.removeValue(forKey: name)
            return
        }
        do {
            try await storage.set(StoredResponseCoding.encode(key: key.storageKey, variants: variants), forKey: name, expiry: .never)
        } catch {
            try? await storage.removeValue(forKey: name)
        }
    }

    /// Runs `write` for `key` without making the synchronous caller wait, after the writes
    /// of the same URL started before it (so a remove then a store of one URL end with the
    /// store, and two stores of one URL's variants do not read and write its value at the
    /// same time); writes of different URLs run side by side. ``flush()`` waits for them.
    func writeInBackground(for key: PrimaryCacheKey, _ write: @escaping @Sendable () async -> Void) {
        backgroundWrites.run(after: key.storageKey, write)
    }
}

extension HTTPCache.SharedStorage {
    /// 900 bytes: a storage that does not say how long a key it takes gets the limit every
    /// storage had before ``keySizeLimit`` existed (longer URLs are keyed by their
    /// SHA-256), so its keys do not move.
    ///
    /// ```swift
    /// let fits = key.utf8.count <= storage.keySizeLimit // 900 unless the storage says
    /// ```
    public var keySizeLimit: Int { 900 }
}
