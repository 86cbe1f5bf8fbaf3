public import Foundation
public import StashCore

/// A memory cache in front of a disk cache, for typed values: reads try memory, then disk
/// (and promote what they find to memory); writes, removals and clears reach both.
///
/// ```swift
/// let disk = try DiskCache(name: "avatars", in: sandbox)
/// let avatars = HybridCache(memory: MemoryCache(configuration: .init(countLimit: 100)), disk: disk, codec: .data)
/// try avatars.set(png, forKey: "ada")
/// let png = avatars.value(forKey: "ada")           // memory hit
///
/// let feeds = HybridCache(disk: try DiskCache(name: "feeds", in: sandbox), codec: .json(Feed.self))
/// ```
///
/// The memory side holds decoded values, so a memory hit costs no decoding. Values are
/// encoded and decoded by the codec without any lock held.
///
/// **Durability** is the disk cache's: a write is in the disk cache (staged or in its file)
/// when `set` returns; see ``DiskCache`` for what a crash may lose. **Threads:** safe from
/// any thread. A memory hit extends a sliding expiry in memory only; the disk copy keeps the
/// deadline of its last disk read or write.
///
/// The reading and writing methods are inlinable, so that a module using a `HybridCache` of
/// a concrete type gets them (and the memory cache's) compiled for that type: a memory hit
/// then costs no generic dispatch.
public final class HybridCache<Value: Sendable>: Sendable {
    /// The memory side, holding decoded values.
    public let memory: MemoryCache<String, Value>
    /// The disk side, holding encoded values.
    public let disk: DiskCache
    /// Turns values into the bytes the disk keeps.
    public let codec: any CacheCodec<Value>

    /// A hybrid cache over `memory` and `disk`, encoding values with `codec`.
    ///
    /// - parameters:
    ///   - memory: The memory side; its limits bound how many decoded values stay in RAM.
    ///   - disk: The disk side. The hybrid cache should be its only user, or values written
    ///     to the disk directly may be shadowed by stale ones in memory.
    ///   - codec: ``DataCodec``, ``JSONCodec``, ``PropertyListCodec`` or your own.
    public init(memory: MemoryCache<String, Value> = MemoryCache(), disk: DiskCache, codec: some CacheCodec<Value>) {
        self.memory = memory
        self.disk = disk
        self.codec = codec
    }

    /// The value of `key` from memory, else from disk (then kept in memory too), or `nil`.
    ///
    /// ```swift
    /// let feed = feeds.value(forKey: "home")
    /// ```
    ///
    /// A disk value the codec cannot decode is removed and reported as a miss.
    @inlinable
    public func value(forKey key: String) -> Value? {
        if let value = memory.value(forKey: key) { return value }
        guard let entry = disk.entry(forKey: key) else { return nil }
        let value: Value
        do {
            value = try codec.decode(entry.data)
        } catch {
            disk.removeValue(forKey: key)
            return nil
        }
        memory.set(value, forKey: key, cost: entry.data.count, expiry: entry.info.expiresAt.map(ExpiryPolicy.at))
        return value
    }

    /// Stores `value` in memory and on disk.
    ///
    /// ```swift
    /// try feeds.set(feed, forKey: "home", expiry: .after(300))
    /// ```
    ///
    /// - throws: The codec's errors and ``DiskCache/set(_:forKey:expiry:metadata:)``'s. On
    ///   error neither side changed.
    @inlinable
    public func set(_ value: Value, forKey key: String, expiry: ExpiryPolicy? = nil) throws {
        let data = try codec.encode(value)
        try disk.set(data, forKey: key, expiry: expiry)
        memory.set(value, forKey: key, cost: data.count, expiry: expiry ?? disk.configuration.defaultExpiry)
    }

    /// Removes `key` from memory and disk.
    @inlinable
    public func removeValue(forKey key: String) {
        memory.removeValue(forKey: key)
        disk.removeValue(forKey: key)
    }

    /// Whether memory or disk has a value for `key`. Does not count as an access.
    @inlinable
    public func contains(_ key: String) -> Bool {
        memory.contains(key) || disk.contains(key)
    }

    /// Empties memory at once and the disk before returning.
    ///
    /// ```swift
    /// try await feeds.removeAll()
    /// ```
    public func removeAll() async throws {
        memory.removeAll()
        try await disk.removeAll()
    }
}
