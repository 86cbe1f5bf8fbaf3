import Foundation
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
            let removed = self.stageTrim(expiredOnly: false)
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
            let removed = self.stageTrim(expiredOnly: true)
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
        let snapshot = state.withLock { $0.index }
        let victims = snapshot.filter { predicate($0.key) }
        let removed = state.withLock { state in
            victims.reduce(0) { count, victim in
                state.index[victim.key] == victim.value && state.stageRemoval(victim.key) ? count + 1 : count
            }
        }
        try await flush()
        return removed
    }

    /// Picks the entries to remove and stages their removal. Entries that changed since the
    /// snapshot (read or rewritten meanwhile) are spared.
    @discardableResult
    func stageTrim(expiredOnly: Bool) -> Int {
        let now = self.now
        let limits = configuration.limits
        let snapshot = state.withLock { state -> [String: DiskRecord] in
            state.needsTrim = false
            state.lastSweep = now
            return state.index
        }
        var victims: [(key: String, record: DiskRecord)] = []
        var survivors: [(key: String, record: DiskRecord)] = []
        survivors.reserveCapacity(snapshot.count)
        for (key, record) in snapshot {
            if !isLive(record, at: now) {
                victims.append((key, record))
            } else {
                survivors.append((key, record))
            }
        }
        if !expiredOnly {
            victims += leastRecentlyUsed(among: survivors, limits: limits)
        }
        guard !victims.isEmpty else { return 0 }
        return state.withLock { state in
            victims.reduce(0) { count, victim in
                state.index[victim.key] == victim.record && state.stageRemoval(victim.key) ? count + 1 : count
            }
        }
    }

    /// The least recently used entries to remove so that every limit holds again, down to
    /// the trim ratio of each exceeded limit.
    private func leastRecentlyUsed(among entries: [(key: String, record: DiskRecord)], limits: Limits) -> [(key: String, record: DiskRecord)] {
        let ratio = min(max(configuration.trimRatio, 0), 1)
        var count = entries.count
        var bytes = entries.reduce(0) { $0 + $1.record.size }
        var targetCount = Int.max
        var targetBytes = Int.max
        if let maxCount = limits.maxCount, count > maxCount { targetCount = Int(Double(maxCount) * ratio) }
        if let maxBytes = limits.maxBytes, bytes > maxBytes { targetBytes = Int(Double(maxBytes) * ratio) }
        if isLowOnDiskSpace() { targetBytes = min(targetBytes, Int(Double(bytes) * ratio)) }
        guard count > targetCount || bytes > targetBytes else { return [] }
        let oldestFirst = entries.sorted {
            ($0.record.accessed, $0.record.created, $0.key) < ($1.record.accessed, $1.record.created, $1.key)
        }
        var victims: [(key: String, record: DiskRecord)] = []
        for entry in oldestFirst {
            if count <= targetCount && bytes <= targetBytes { break }
            victims.append(entry)
            count -= 1
            bytes -= entry.record.size
        }
        return victims
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
