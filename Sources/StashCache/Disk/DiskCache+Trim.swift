import Foundation
import GRDB
import StashCore

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

    /// Removes expired entries and entries older than ``Configuration/ageLimit``. The background flush
    /// does it every ``Configuration/expiryInterval``.
    ///
    /// ```swift
    /// try await cache.removeExpired()
    /// ```
    ///
    /// - returns: The number of entries removed.
    @discardableResult
    public func removeExpired() async throws -> Int {
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
                    // Compared but for the record's location, which compaction may move meanwhile.
                    guard !state.isClosed, state.current(victim.key, reader)?.unlocated == victim.record.unlocated else { return count }
                    state.stageRemoval(victim.key, old: victim.record)
                    return count + 1
                }
            }
        }
        try await flush()
        return removed
    }

    /// Picks the entries to remove and stages their removal. Runs on ``queue``, where alone
    /// the manifest changes: the rows it walks stay as they are. Entries are taken as
    /// callers see them: the rows with the access dates read since the last flush laid
    /// over them, and the staged writes, copied with the count and size they make. A victim
    /// written, removed or read again since that copy is spared.
    @discardableResult
    func stageTrim(expiredOnly: Bool) throws -> Int {
        let now = self.now
        let limits = configuration.limits
        let (count, bytes, pending, touched, touchedLocations) = state.withLock { state in
            state.needsTrim = false
            state.lastSweep = now
            state.resolve(reader)
            return (state.count, state.totalSize, state.pending, state.touched, state.touchedLocations)
        }
        let columns = "key, \(Manifest.recordColumns)"
        var victims: [TrimVictim] = []
        var chosen: Set<String> = []
        func consider(_ key: String, _ record: DiskRecord, staged: UInt64?) {
            guard !isLive(record, at: now), chosen.insert(key).inserted else { return }
            victims.append(TrimVictim(key: key, record: record, staged: staged))
        }
        // Expired entries, found through `entry_expiry`; then, with a maximum age, the
        // entries written too long ago (a walk of the rows). A row with a staged change is
        // not the entry any more; one read since has its new deadline.
        let expiredSQL = "SELECT \(columns) FROM entry WHERE expires <= ?1"
            + (limits.ageLimit == nil ? "" : " OR created + ?2 <= ?1")
        let arguments: StatementArguments = limits.ageLimit.map { [now, $0] } ?? [now]
        try manifest.rows(expiredSQL, arguments: arguments) { row in
            let key: String = try row.decode(atIndex: 0)
            guard pending[key] == nil else { return true }
            var record = try Manifest.record(row, from: 1)
            DiskCacheState.overlay(touched, touchedLocations, key, on: &record)
            consider(key, record, staged: nil)
            return true
        }
        for (key, change) in pending {
            if case .write(let record, _) = change.value { consider(key, record, staged: change.sequence) }
        }
        if !expiredOnly {
            let expired = victims.reduce(0) { $0 + $1.record.size }
            try leastRecentlyUsed(
                count: count - victims.count, bytes: bytes - expired, limits: limits,
                sparing: chosen, pending: pending, touched: touched, touchedLocations: touchedLocations
            ) { victims.append($0) }
        }
        guard !victims.isEmpty else { return 0 }
        return state.withLock { state in
            victims.reduce(0) { count, victim in
                guard !state.isClosed, state.touched[victim.key] == touched[victim.key] else { return count }
                if let location = victim.record.location?.packed, state.touchedLocations[location] != touchedLocations[location] { return count }
                // Still the write copied, or still no staged change over the row walked.
                guard state.pending[victim.key]?.sequence == victim.staged else { return count }
                state.stageRemoval(victim.key, old: victim.record)
                return count + 1
            }
        }
    }

    /// Hands `pick` the least recently used entries to remove so that every limit holds
    /// again, down to the trim ratio of each exceeded limit, given `count` live entries of
    /// `bytes` in all; the keys of `sparing` are already removed. Walks the rows by last
    /// access only when a limit is exceeded, merging in the entries whose order the manifest
    /// does not have: staged writes, and rows read since the last flush (`pending`,
    /// `touched`, copied with `count` and `bytes`).
    private func leastRecentlyUsed(
        count: Int, bytes: Int, limits: Limits, sparing: Set<String>,
        pending: [String: PendingChange], touched: [String: AccessChange], touchedLocations: [Int64: Double],
        pick: (TrimVictim) -> Void
    ) throws {
        let ratio = min(max(configuration.trimRatio, 0), 1)
        var count = count
        var bytes = bytes
        var targetCount = Int.max
        var targetBytes = Int.max
        if let countLimit = limits.countLimit, count > countLimit { targetCount = Int(Double(countLimit) * ratio) }
        if let sizeLimit = limits.sizeLimit, bytes > sizeLimit { targetBytes = Int(Double(sizeLimit) * ratio) }
        if isLowOnDiskSpace() { targetBytes = min(targetBytes, Int(Double(bytes) * ratio)) }
        guard count > targetCount || bytes > targetBytes else { return }
        let columns = "key, \(Manifest.recordColumns)"
        // The entries kept in memory, oldest first.
        var staged: [TrimVictim] = []
        for (key, change) in pending where !sparing.contains(key) {
            if case .write(let record, _) = change.value { staged.append(TrimVictim(key: key, record: record, staged: change.sequence)) }
        }
        for (key, access) in touched where pending[key] == nil && !sparing.contains(key) {
            try manifest.rows("SELECT \(columns) FROM entry WHERE key = ?", arguments: [key]) { row in
                var record = try Manifest.record(row, from: 1)
                (record.accessed, record.expires) = (access.accessed, access.expires)
                staged.append(TrimVictim(key: key, record: record, staged: nil))
                return false
            }
        }
        for (location, accessed) in touchedLocations {
            try manifest.rows("SELECT \(columns) FROM entry WHERE loc = ?", arguments: [location]) { row in
                let key: String = try row.decode(atIndex: 0)
                guard pending[key] == nil, touched[key] == nil, !sparing.contains(key) else { return false }
                var record = try Manifest.record(row, from: 1)
                record.accessed = accessed
                staged.append(TrimVictim(key: key, record: record, staged: nil))
                return false
            }
        }
        staged.sort { $0.order < $1.order }
        var next = staged.startIndex
        func take(_ victim: TrimVictim) -> Bool {
            guard count > targetCount || bytes > targetBytes else { return false }
            pick(victim)
            count -= 1
            bytes -= victim.record.size
            return true
        }
        try manifest.rows("SELECT \(columns) FROM entry ORDER BY accessed, created, key") { row in
            let key: String = try row.decode(atIndex: 0)
            guard !sparing.contains(key), pending[key] == nil, touched[key] == nil else { return true }
            let victim = TrimVictim(key: key, record: try Manifest.record(row, from: 1), staged: nil)
            if let location = victim.record.location?.packed, touchedLocations[location] != nil { return true }
            while next < staged.endIndex, staged[next].order < victim.order {
                guard take(staged[next]) else { return false }
                next += 1
            }
            return take(victim)
        }
        while next < staged.endIndex, take(staged[next]) { next += 1 }
    }

    /// Whether the volume of the cache has less free space than ``Configuration/minimumFreeDiskSpace``.
    func isLowOnDiskSpace() -> Bool {
        guard let floor = configuration.minimumFreeDiskSpace else { return false }
        var info = statvfs()
        guard statvfs(directory.path, &info) == 0 else { return false }
        let free = Int64(info.f_bavail) * Int64(info.f_frsize)
        return free < floor
    }
}

/// An entry a trim removes: its record as the trim saw it and, for a staged write, the
/// sequence of that change (`nil` for a row of the manifest with no change staged).
struct TrimVictim {
    var key: String
    var record: DiskRecord
    var staged: UInt64?

    /// Least recently used first: last access, then creation, then key.
    var order: (Double, Double, String) { (record.accessed, record.created, key) }
}
