import Foundation
public import StashCore

/// The caches of an app's business data (the PGCacheManager idea): typed keys, shared or
/// per-user scopes, purgeable or kept locations, and freshness per key.
///
/// ```swift
/// let store = try CacheStore(sandbox: sandbox)
/// try store.set(products, for: .products)                    // shared, in Caches
/// try store.set(orders, for: orders(of: "42", page: 1))      // user 42, in Documents
///
/// if let cached = try store.value(for: .products) {
///     show(cached.value)                                     // even when offline
///     if cached.isStale { refresh() }
/// }
/// try store.set(nil, for: .products)                         // storing nil removes
/// let bytes = store.size(of: .user("42"))
/// try await store.removeAll(in: .user("42"))                // at logout
/// ```
///
/// Each location is one ``DiskCache`` named `name` (in the caches folder, and, once a key
/// uses it, in the documents folder); values are JSON. Durability and thread safety are
/// the disk cache's: safe from any thread, and a crash may lose the writes of the last flush
/// window, never leaving a broken entry.
public final class CacheStore: Sendable {
    /// The sandbox the store lives in.
    public let sandbox: Sandbox
    /// The folder name of the store in each location.
    public let name: String
    /// The configuration of each location's disk cache (clock, limits).
    public let configuration: DiskCache.Configuration
    private let caches: LockedValue<[CacheLocation: DiskCache]>

    /// Opens the store `name` of `sandbox`.
    ///
    /// - throws: ``/StashCore/StashError/Code/invalidName`` for a bad name, and what
    ///   ``DiskCache/init(directory:configuration:)`` throws.
    public init(sandbox: Sandbox, name: String = "CacheStore", configuration: DiskCache.Configuration = DiskCache.Configuration()) throws {
        try Sandbox.validate(name: name, what: "cache store name")
        self.sandbox = sandbox
        self.name = name
        self.configuration = configuration
        caches = LockedValue([:])
        _ = try cache(for: .caches)
    }

    /// Stores `value` for `key`, or removes the entry when `value` is `nil` or the key's
    /// freshness is ``CacheFreshness/doNotCache``.
    ///
    /// - throws: ``/StashCore/StashError/Code/unsupportedValue`` when the value cannot be
    ///   encoded, ``/StashCore/StashError/Code/invalidKey`` when the key's name, user or
    ///   parameter holds NUL, and the disk cache's errors (``/StashCore/StashError/Code/diskFull``…).
    public func set<Value>(_ value: Value?, for key: CacheKey<Value>) throws {
        try key.validate()
        let disk = try cache(for: key.location)
        guard let value, key.freshness != .doNotCache else {
            disk.removeValue(forKey: key.storageKey)
            return
        }
        try disk.set(try JSONCodec<Value>().encode(value), forKey: key.storageKey, expiry: .never)
    }

    /// The value of `key` with its age and whether it is stale, or `nil` when there is none
    /// (or the key's freshness is ``CacheFreshness/doNotCache``).
    ///
    /// ```swift
    /// if let cached = try store.value(for: .products) { show(cached.value) }
    /// ```
    ///
    /// - throws: ``/StashCore/StashError/Code/typeMismatch`` when the stored entry does not
    ///   decode as `Value` (a model changed between versions of the app): the entry is
    ///   left as it is, for a later version to read or for ``set(_:for:)`` or
    ///   ``removeValue(for:)`` to replace; ``/StashCore/StashError/Code/invalidKey`` when the
    ///   key's name, user or parameter holds NUL; and what opening the location's
    ///   ``DiskCache`` throws.
    public func value<Value>(for key: CacheKey<Value>) throws -> CachedValue<Value>? {
        try key.validate()
        guard key.freshness != .doNotCache else { return nil }
        guard let entry = try cache(for: key.location).entry(forKey: key.storageKey) else { return nil }
        let value: Value
        do {
            value = try JSONCodec<Value>().decode(entry.data)
        } catch {
            throw StashError(.typeMismatch, "the cached entry does not decode as \(Value.self): \(error)", key: key.storageKey)
        }
        let age = max(0, configuration.clock.now.timeIntervalSince(entry.info.createdAt))
        let isStale: Bool
        switch key.freshness {
        case .doNotCache, .forever: isStale = false
        case .fresh(let seconds): isStale = age >= seconds
        }
        return CachedValue(value: value, storedAt: entry.info.createdAt, age: age, isStale: isStale)
    }

    /// Removes the entry of `key`.
    public func removeValue<Value>(for key: CacheKey<Value>) {
        (try? cache(for: key.location))?.removeValue(forKey: key.storageKey)
    }

    /// The bytes of the values of `scope` (every scope when `nil`), in every location.
    ///
    /// ```swift
    /// let mine = store.size(of: .user("42")), all = store.size()
    /// ```
    public func size(of scope: CacheScope? = nil) -> Int {
        let prefix = scope?.keyPrefix ?? ""
        return openCaches().reduce(0) { total, disk in
            total + disk.totalSize(ofKeysWithPrefix: prefix)
        }
    }

    /// Removes every entry of `scope` in every location and returns when they are gone from
    /// disk. Other scopes are untouched.
    ///
    /// ```swift
    /// let removed = try await store.removeAll(in: .user("42"))
    /// ```
    ///
    /// - returns: The number of entries removed.
    @discardableResult
    public func removeAll(in scope: CacheScope) async throws -> Int {
        let prefix = scope.keyPrefix
        var removed = 0
        for disk in openCaches() {
            removed += try await disk.removeAll { $0.hasPrefix(prefix) }
        }
        return removed
    }

    /// Removes every entry of every scope and returns when they are gone from disk.
    ///
    /// ```swift
    /// try await store.removeAll()
    /// ```
    public func removeAll() async throws {
        for disk in openCaches() { try await disk.removeAll() }
    }

    /// Flushes and closes every location (see ``DiskCache/close()``).
    ///
    /// ```swift
    /// try store.close()
    /// ```
    ///
    /// - throws: The first error of a location that could not write what it had staged
    ///   (``/StashCore/StashError/Code/diskFull``); every location is closed either way.
    public func close() throws {
        var firstError: (any Error)?
        for disk in caches.withLock({ Array($0.values) }) {
            do { try disk.close() } catch { firstError = firstError ?? error }
        }
        if let firstError { throw firstError }
    }

    /// The disk caches of the locations in use, opening the documents one when it exists on
    /// disk from an earlier launch.
    private func openCaches() -> [DiskCache] {
        if FileStore.isFolder(directory(for: .documents)) { _ = try? cache(for: .documents) }
        return caches.withLock { Array($0.values) }
    }

    private func directory(for location: CacheLocation) -> URL {
        let folder: Sandbox.Folder = location == .caches ? .caches : .documents
        return sandbox.path(for: folder).appendingPathComponent(name, isDirectory: true)
    }

    private func cache(for location: CacheLocation) throws -> DiskCache {
        try caches.withLock { caches in
            if let cache = caches[location] { return cache }
            try sandbox.url(for: location == .caches ? .caches : .documents)
            let cache = try DiskCache(directory: directory(for: location), configuration: configuration)
            caches[location] = cache
            return cache
        }
    }
}
