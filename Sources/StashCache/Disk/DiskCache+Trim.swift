import Foundation
import GRDB
import StashCore
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension DiskCache {
    /// Removes expired and too-old entries, then, when a limit is exceeded, the least
    /// recently used entries until the cache is at ``Configuration/trimRatio`` of that limit.
    /// Returns when the removals are in the manifest and their files deleted.
    ///
    /// The background flush trims on its own after a write exceeds a limit; call this to
    /// trim now (at launch, on a low-disk warning).
    ///
    /// ```swift
    /// let removed = try await cache.trim()
    /// ```
    ///
    /// - returns: The number of entries removed.
    @discardableResult
    public func trim() async throws -> Int {
        guard !isReadOnly else { throw StashError(.readOnly, "this DiskCache was opened read-only", path: directory.path) }
        return try await onQueue {
            try self.flushNow()
            let removed = try self.stageTrim(expiredOnly: false)
            try self.flushNow()
            return removed
        }
    }

    /// Removes expired entries and entries older than ``Limits/maxAge``. The background flush
    /// does it every ``Configuration/sweepInterval``.
    ///
    /// ```swift
    /// try await cache.sweep()
    /// ```
    ///
    /// - returns: The number of entries removed.
    @discardableResult
    public func sweep() async throws -> Int {
        guard !isReadOnly else { throw StashError(.readOnly, "this DiskCache was opened read-only", path: directory.path) }
        return try await onQueue {
            try self.flushNow()
            let removed = try self.stageTrim(expiredOnly: true)
            try self.flushNow()
            return removed
        }
    }

    /// Removes every entry and returns when the manifest is empty and the files deleted.
    /// Writes made while it runs are kept.
    ///
    /// ```swift
    /// try await cache.removeAll()
    /// ```
    public func removeAll() async throws {
        try await removeAll { _ in true }
    }

    /// Removes the entries whose key matches `predicate` (which runs without any lock held).
    /// The predicate sees keys as the cache saves them, in NFC.
    ///
    /// ```swift
    /// try await cache.removeAll { $0.hasPrefix("user/42/") }
    /// ```
    ///
    /// - returns: The number of entries removed.
    @discardableResult
    public func removeAll(where predicate: @escaping @Sendable (String) -> Bool) async throws -> Int {
        guard !isReadOnly else { throw StashError(.readOnly, "this DiskCache was opened read-only", path: directory.path) }
        var victims: [(key: String, record: DiskRecord)] = []
        try forEachEntry { key, record in
            if predicate(key) { victims.append((key, record)) }
        }
        var removed = 0
        // In slices, so that reads and writes are not held up for the whole walk.
        for start in stride(from: 0, to: victims.count, by: 1024) {
            let slice = victims[start..<min(start + 1024, victims.count)]
            removed += state.withLock { state in
                slice.reduce(0) { count, victim in
                    guard !state.isClosed, state.current(victim.key, reader) == victim.record else { return count }
                    state.stageRemoval(victim.key, old: victim.record)
                    return count + 1
                }
            }
        }
        try await flush()
        return removed
    }

    /// Picks the entries to remove and stages their removal. Runs on ``queue`` (after a
    /// flush, so that the manifest holds nearly everything): the manifest changes only there,
    /// so a victim's row is as the query saw it unless a change was staged for its key or it
    /// was read since, and those entries are spared.
    @discardableResult
    func stageTrim(expiredOnly: Bool) throws -> Int {
        let now = self.now
        let limits = configuration.limits
        let (count, bytes) = state.withLock { state -> (Int, Int) in
            state.needsTrim = false
            state.lastSweep = now
            return (state.count, state.totalSize)
        }
        let columns = "key, \(Manifest.recordColumns)"
        var victims: [(key: String, record: DiskRecord)] = []
        // Expired entries, found through `entry_expiry`; then, with a maximum age, the
        // entries written too long ago (a walk of the rows).
        try manifest.rows("SELECT \(columns) FROM entry WHERE expires <= ?", arguments: [now]) { row in
            victims.append((row[0], Manifest.record(row, from: 1)))
            return true
        }
        if let maxAge = limits.maxAge {
            let sql = "SELECT \(columns) FROM entry WHERE created + ?1 <= ?2 AND (expires IS NULL OR expires > ?2)"
            try manifest.rows(sql, arguments: [maxAge, now]) { row in
                victims.append((row[0], Manifest.record(row, from: 1)))
                return true
            }
        }
        if !expiredOnly {
            let expired = victims.reduce(0) { $0 + $1.record.size }
            try leastRecentlyUsed(count: count - victims.count, bytes: bytes - expired, limits: limits, sparing: Set(victims.map(\.key))) {
                victims.append($0)
            }
        }
        guard !victims.isEmpty else { return 0 }
        return state.withLock { state in
            victims.reduce(0) { count, victim in
                guard !state.isClosed, state.pending[victim.key] == nil, state.touched[victim.key] == nil else { return count }
                state.stageRemoval(victim.key, old: victim.record)
                return count + 1
            }
        }
    }

    /// Hands `pick` the least recently used entries to remove so that every limit holds
    /// again, down to the trim ratio of each exceeded limit, given `count` live entries of
    /// `bytes` in all; the keys of `sparing` are already removed. Walks the rows by last
    /// access only when a limit is exceeded.
    private func leastRecentlyUsed(
        count: Int, bytes: Int, limits: Limits, sparing: Set<String>, pick: ((key: String, record: DiskRecord)) -> Void
    ) throws {
        let ratio = min(max(configuration.trimRatio, 0), 1)
        var count = count
        var bytes = bytes
        var targetCount = Int.max
        var targetBytes = Int.max
        if let maxCount = limits.maxCount, count > maxCount { targetCount = Int(Double(maxCount) * ratio) }
        if let maxBytes = limits.maxBytes, bytes > maxBytes { targetBytes = Int(Double(maxBytes) * ratio) }
        if isLowOnDiskSpace() { targetBytes = min(targetBytes, Int(Double(bytes) * ratio)) }
        guard count > targetCount || bytes > targetBytes else { return }
        let sql = "SELECT key, \(Manifest.recordColumns) FROM entry ORDER BY accessed, created, key"
        try manifest.rows(sql) { row in
            guard count > targetCount || bytes > targetBytes else { return false }
            let key: String = row[0]
            guard !sparing.contains(key) else { return true }
            let record = Manifest.record(row, from: 1)
            pick((key, record))
            count -= 1
            bytes -= record.size
            return true
        }
    }

    /// Whether the volume of the cache has less free space than ``Limits/minimumFreeDiskSpace``.
    func isLowOnDiskSpace() -> Bool {
        guard let floor = configuration.limits.minimumFreeDiskSpace else { return false }
        var info = statvfs()
        guard statvfs(directory.path, &info) == 0 else { return false }
        let free = Int64(info.f_bavail) * Int64(info.f_frsize)
        return free < floor
    }
}
