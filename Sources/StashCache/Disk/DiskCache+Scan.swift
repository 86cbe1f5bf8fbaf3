import Foundation
import StashCore

/// What needs many entries at once: listings, statistics, sizes. The manifest is walked
/// (``ManifestScan``) with the staged changes laid over it; nothing of it stays in memory.
extension DiskCache {
    /// Every entry that has not expired, sorted by key. Keys are in the form the cache saves
    /// them: NFC. Walks the manifest, so it takes time in proportion to the entries.
    ///
    /// ```swift
    /// for info in try cache.entries() { print(info.key, info.size) }
    /// ```
    public func entries() throws -> [EntryInfo] {
        let now = self.now
        var entries: [EntryInfo] = []
        try forEachEntry { key, record in
            if isLive(record, at: now) { entries.append(record.info(key: key)) }
        }
        return entries.sorted { $0.key < $1.key }
    }

    /// Counts, bytes, hits and the oldest and newest entries. Walks the manifest, so it
    /// takes time in proportion to the entries; ``count`` and ``totalSize`` do not.
    ///
    /// ```swift
    /// let stats = try cache.statistics()
    /// print(stats.count, stats.totalSize, stats.hitRatio ?? 0)
    /// ```
    public func statistics() throws -> Statistics {
        var statistics = Statistics(count: 0, totalSize: 0, inlineCount: 0, fileCount: 0, hits: 0, misses: 0)
        var oldest = Double.infinity
        var newest = -Double.infinity
        try forEachEntry { _, record in
            statistics.count += 1
            statistics.totalSize += record.size
            if record.isInline { statistics.inlineCount += 1 } else { statistics.fileCount += 1 }
            oldest = min(oldest, record.created)
            newest = max(newest, record.created)
        }
        if statistics.count > 0 {
            statistics.oldest = Date(timeIntervalSince1970: oldest)
            statistics.newest = Date(timeIntervalSince1970: newest)
        }
        if isReadOnly {
            let counters = try manifest.counters()
            (statistics.hits, statistics.misses) = (counters.hits, counters.misses)
        } else {
            (statistics.hits, statistics.misses) = state.withLock { ($0.hits, $0.misses) }
        }
        return statistics
    }

    /// The number of entries, expired ones not yet swept included. Kept as a figure, not
    /// counted: reading it costs at most a lookup of each row replaced by a write staged
    /// since the last flush, once. Includes staged writes, which a crash before their flush
    /// loses (the figure after a reopen is then the flushed one). Thread-safe.
    ///
    /// `let shown = "\(cache.count) items, \(cache.totalSize / 1_000_000) MB"`
    public var count: Int {
        if isReadOnly { return reader.counter("count") }
        return state.withLock { state in
            state.resolve(reader)
            return state.count
        }
    }

    /// The total size of the values in bytes (the manifest and file-system overhead aside).
    /// Kept as a figure, not counted, like ``count``, and like it includes staged writes.
    /// Thread-safe.
    ///
    /// `if cache.totalSize > 100_000_000 { try await cache.trim() }`
    public var totalSize: Int {
        if isReadOnly { return reader.counter("bytes") }
        return state.withLock { state in
            state.resolve(reader)
            return state.totalSize
        }
    }

    /// The total size of the values whose key starts with `prefix`. Walks the keys with
    /// that prefix only (the manifest keeps keys in order).
    ///
    /// ```swift
    /// let userBytes = cache.totalSize(ofKeysWithPrefix: "user/42/")
    /// ```
    public func totalSize(ofKeysWithPrefix prefix: String) -> Int {
        let prefix = (try? StoredKey.normalized(prefix)) ?? prefix
        var total = 0
        try? forEachEntry(prefix: prefix) { key, record in
            if key.hasPrefix(prefix) { total += record.size }
        }
        return total
    }

    /// The keys of the entries now, in no order: for a caller that picks entries to remove
    /// by key (the HTTP cache's purge of a URL prefix).
    package var keys: [String] {
        var keys: [String] = []
        try? forEachEntry { key, _ in keys.append(key) }
        return keys
    }

    /// Calls `body` with every entry as callers see it (expired ones included): the rows of
    /// one snapshot of the manifest, taken together with a copy of the staged changes and
    /// touched access dates, which replace the rows of their keys. With a `prefix`, only
    /// the keys whose UTF-8 bytes start with it. `body` runs without the state lock.
    func forEachEntry(prefix: String? = nil, _ body: (String, DiskRecord) throws -> Void) throws {
        try scan.walk { walk in
            guard let walk else { return }
            var pending: [String: PendingChange] = [:]
            var touched: [String: AccessChange] = [:]
            var touchedLocations: [Int64: Double] = [:]
            if isReadOnly {
                try walk.pin()
            } else {
                let isOpen = try state.withLock { state throws(StashError) -> Bool in
                    guard !state.isClosed else { return false }
                    try walk.pinning()
                    (pending, touched, touchedLocations) = (state.pending, state.touched, state.touchedLocations)
                    return true
                }
                guard isOpen else { return }
            }
            let sql = "SELECT key, \(ManifestColumns.record) FROM entry" + (prefix == nil ? "" : " WHERE key >= ?1 ORDER BY key")
            try walk.rows(sql, binding: prefix) { statement in
                guard let key = ManifestColumns.text(statement, 0) else { return true }
                if let prefix, !key.utf8.starts(with: prefix.utf8) { return false }
                guard pending[key] == nil else { return true }
                var record = ManifestColumns.record(statement, at: 1)
                DiskCacheState.overlay(touched, touchedLocations, key, on: &record)
                try body(key, record)
                return true
            }
            for (key, change) in pending {
                guard case .write(let record, _) = change.value else { continue }
                if let prefix, !key.utf8.starts(with: prefix.utf8) { continue }
                try body(key, record)
            }
        }
    }
}
