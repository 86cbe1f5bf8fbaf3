public import Foundation
public import StashCore

extension ExpiringPool where Key: Codable, Value: Codable {
    /// One saved entry; `deadline` is absolute (seconds since 2001), `nil` for never.
    struct SavedEntry: Codable {
        var key: Key
        var value: Value
        var deadline: Double?
        var sliding: Double?
    }

    /// Writes every live entry, with its deadline, to `url` as JSON, atomically.
    ///
    /// ```swift
    /// try pool.save(to: sandbox.url(for: .caches).appendingPathComponent("recent.json"))
    /// ```
    ///
    /// After a crash the file holds the previous save or this one, never a mix. Keys and
    /// values are encoded outside the pool's lock.
    ///
    /// - throws: ``/StashCore/StashError`` with `unsupportedValue` when a value cannot be encoded,
    ///   `diskFull`, `permissionDenied` or `io` when the write fails (the old file stays).
    public func save(to url: URL, durability: FileStore.Durability = .powerSafe) throws {
        let now = now
        let snapshot = state.withLock { storage in
            storage.removeExpired(now: now)
            return storage.snapshot()
        }
        let saved = snapshot.map { item in
            SavedEntry(
                key: item.entry.key, value: item.entry.value,
                deadline: item.deadline >= ExpiringPoolStorage<Key, Value>.never ? nil : item.deadline,
                sliding: item.entry.sliding > 0 ? item.entry.sliding : nil
            )
        }
        try CollectionFile.write(saved, format: "stash.pool", to: url, durability: durability)
    }

    /// Creates a pool from a file written by ``save(to:durability:)``, as at the last save,
    /// minus the entries that expired since. When the file holds more entries than
    /// `countLimit`, those closest to expiry are left out.
    ///
    /// ```swift
    /// let pool = (try? ExpiringPool<String, Product>(contentsOf: url, countLimit: 50, defaultExpiry: .after(900)))
    ///     ?? ExpiringPool(countLimit: 50, defaultExpiry: .after(900))
    /// ```
    ///
    /// - throws: ``/StashCore/StashError`` with `notFound` when there is no file, `corruptFile` when it
    ///   cannot be decoded, `unsupportedVersion` when a newer build wrote it. The file is
    ///   never modified.
    public convenience init(
        contentsOf url: URL, countLimit: Int, defaultExpiry: ExpiryPolicy, clock: any StashClock = SystemClock()
    ) throws {
        let saved = try CollectionFile.read(SavedEntry.self, format: "stash.pool", from: url)
        self.init(countLimit: countLimit, defaultExpiry: defaultExpiry, clock: clock)
        let now = now
        state.withLock { storage in
            // Farthest deadlines last, so that a smaller capacity keeps them.
            for entry in saved.sorted(by: { ($0.deadline ?? .infinity) < ($1.deadline ?? .infinity) }) {
                _ = storage.set(
                    entry.value, forKey: entry.key, deadline: entry.deadline ?? .infinity,
                    sliding: max(0, entry.sliding ?? 0), now: now
                )
            }
        }
    }
}
