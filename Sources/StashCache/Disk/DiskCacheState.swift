import Foundation
import StashCore

/// The mutable state of a disk cache, behind its lock.
///
/// The manifest is the index: the state holds no entry that the manifest has. `pending`
/// holds what the manifest does not have yet (the newest write or removal of each key, with
/// the inline value), `touched` the last-access dates (and sliding deadlines) of entries read
/// since the last flush, which the next flush records. An entry as callers see it is its
/// staged change, else its manifest row with its touched dates (``current(_:_:)``); both are
/// read under this state's lock, so that a flush, which clears what it committed under the
/// lock, never shows a reader a change twice or not at all.
struct DiskCacheState {
    var pending: [String: PendingChange] = [:]
    var touched: [String: AccessChange] = [:]
    /// The last-access dates of small values read since the last flush, by the location of
    /// their record (``ValueLocation/packed``), which names one row and is never reused: a
    /// table of integers, far smaller and cheaper to fill than ``touched`` in a large cache
    /// read at random. Values with a sliding expiry, in files, staged or from before the
    /// value log are in ``touched``.
    var touchedLocations: [Int64: Double] = [:]
    var sequence: UInt64 = 0
    /// The number of entries and their total size, expired ones not yet swept included.
    var count: Int
    var totalSize: Int
    var pendingBytes = 0
    /// Keys staged with a write whose replaced row is not known yet (some may be known since).
    var unresolved: [String] = []
    var flush = FlushSchedule.idle
    var needsTrim = false
    var lastSweep: Double
    /// Hits and misses recorded in the manifest before this session, then this session's.
    var hits: Int
    var misses: Int
    var unflushedHits = 0
    var unflushedMisses = 0
    var isClosed = false
    /// Set by ``DiskCache/suspend()``: the figures the cache had then, committed and
    /// matching the manifest's counters, so that ``DiskCache/resume()`` can add what changed
    /// since to what another writer may have committed meanwhile.
    var suspension: ManifestCounters?
    /// The rows removed while suspended, by key: ``DiskCache/resume()`` keeps a removal only
    /// if its row is still the one removed (another writer may have replaced or removed it).
    var removedWhileSuspended: [String: DiskRecord] = [:]
    /// The error of the last flush when it failed for lack of disk space: writes are refused
    /// with `.diskFull` until a flush succeeds.
    var diskFull: StashError?
    /// Background flushes failed in a row: the retry backs off with each, and only the first
    /// is logged.
    var failedFlushes = 0
    /// Where the records of small values are (a writer's, while it holds the writer lock);
    /// `nil` when its file could not be opened: reads then go through the manifest.
    var locations: LocationIndex?
    /// The value log's size when compaction last measured its live bytes
    /// (``DiskCache/compactIfDue()``).
    var logChecked: Int
    /// The values' total size then (or at open): compaction looks again when it halves.
    var sizeAtLogCheck: Int

    init(counters: ManifestCounters, now: Double) {
        count = counters.count
        totalSize = counters.bytes
        hits = counters.hits
        misses = counters.misses
        logChecked = counters.logChecked
        sizeAtLogCheck = counters.bytes
        lastSweep = now
    }

    /// Files in ``locations`` what a commit at `generation` wrote: the records of the
    /// written values (not those with a sliding expiry, whose deadline moves in the manifest
    /// only), and no location for the keys replaced by files or removed.
    func follow(_ batch: FlushBatch, generation: Int64) {
        guard let locations else { return }
        for write in batch.writes {
            locations.set(write.record.sliding == nil ? write.location : nil, for: locations.hash(write.key))
        }
        for key in batch.removals { locations.set(nil, for: locations.hash(key)) }
        locations.follow(generation)
    }

    /// The entry of `key` as callers see it (expired or not): its staged change, else its
    /// manifest row with the access dates read since the last flush.
    func current(_ key: String, _ reader: ManifestReader) -> DiskRecord? {
        if !pending.isEmpty, let change = pending[key] {
            if case .write(let record, _) = change.value { return record }
            return nil
        }
        guard var record = reader.record(forKey: key) else { return nil }
        overlay(key, on: &record)
        return record
    }

    /// Puts the access dates read since the last flush on `record`, the manifest row of `key`.
    func overlay(_ key: String, on record: inout DiskRecord) {
        Self.overlay(touched, touchedLocations, key, on: &record)
    }

    /// Puts on `record`, the manifest row of `key`, its dates in `touched` (by key) or
    /// `touchedLocations` (by its record's location): for the state, and for the copies of
    /// them that a scan or a trim walks the manifest with.
    static func overlay(_ touched: [String: AccessChange], _ touchedLocations: [Int64: Double], _ key: String, on record: inout DiskRecord) {
        if !touched.isEmpty, let access = touched[key] {
            record.accessed = access.accessed
            record.expires = access.expires
        } else if !touchedLocations.isEmpty, let location = record.location, let accessed = touchedLocations[location.packed] {
            record.accessed = accessed
        }
    }

    /// The entries whose last-access dates wait for the next flush.
    var touchCount: Int { touched.count + touchedLocations.count }

    /// Stages a write of `key`. The row it replaces is not looked up: with no change staged
    /// for the key, the write is counted as a new entry (``count`` and ``totalSize`` are then
    /// upper bounds) until ``resolve(_:)`` or the flush learns the row.
    mutating func stageWrite(_ key: String, _ record: DiskRecord, inlineValue: Data?) {
        if let previous = pending[key] {
            if case .write(let old, _) = previous.value {
                totalSize += record.size - old.size
            } else {
                count += 1
                totalSize += record.size
            }
        } else {
            count += 1
            totalSize += record.size
            unresolved.append(key)
        }
        enqueue(key, .write(record, inlineValue: inlineValue), base: nil)
        pendingBytes += inlineValue?.count ?? 0
    }

    /// Stages the removal of `key`, when it has an entry; whether it had one. A row that
    /// cannot be read now (an I/O error, a damaged page) may exist, and the location index
    /// may still serve its value: its removal is staged all the same, and the flush learns
    /// the row it removes (failing, to try again later, while it cannot).
    @discardableResult
    mutating func stageRemoval(_ key: String, reader: ManifestReader) -> Bool {
        if !pending.isEmpty, let change = pending[key] {
            guard case .write(let old, _) = change.value else { return false }
            stageRemoval(key, old: old)
            return true
        }
        do {
            guard var old = try reader.lookUpRecord(forKey: key) else { return false }
            overlay(key, on: &old)
            stageRemoval(key, old: old)
        } catch {
            enqueue(key, .remove, base: nil)
        }
        return true
    }

    /// Stages the removal of `key`, whose entry is `old` now (its staged write, else its row).
    mutating func stageRemoval(_ key: String, old: DiskRecord) {
        count -= 1
        totalSize -= old.size
        if suspension != nil { removedWhileSuspended[key] = old }
        enqueue(key, .remove, base: ManifestBase(old))
    }

    /// Stages `value` for `key`. The row it replaces is the one the key's staged change
    /// replaces, if there is one, else `base` (`nil`: not known).
    private mutating func enqueue(_ key: String, _ value: PendingChange.Value, base: ManifestBase?) {
        let previous = pending[key]
        if case .write(_, let data?)? = previous?.value { pendingBytes -= data.count }
        sequence += 1
        // A staged file-backed write replaced before its commit leaves its file behind.
        var obsoleteFiles = previous?.obsoleteFiles ?? []
        if let file = previous?.file { obsoleteFiles.append(file) }
        pending[key] = PendingChange(value: value, sequence: sequence, obsoleteFiles: obsoleteFiles, base: previous.map(\.base) ?? base)
        if !touched.isEmpty { touched[key] = nil }
    }

    /// After a suspension, forgets each removal staged meanwhile whose row another writer
    /// removed already, or replaced with a value written later (which stays); `row` gives the
    /// key's row now. In doubt (a row that cannot be read, one written at the same instant),
    /// the removal stays: a cache may lose a value, never keep one it was told to remove.
    mutating func dropSupersededRemovals(row: (String) throws -> DiskRecord?) {
        for (key, removed) in removedWhileSuspended {
            guard let change = pending[key], case .remove = change.value else { continue }
            let now: DiskRecord?
            do { now = try row(key) } catch { continue }
            if let now, now.created <= removed.created { continue }
            pending[key] = nil
            count += 1
            totalSize += removed.size
        }
        removedWhileSuspended.removeAll()
    }

    /// Learns the row that the staged change of `key` replaces, `base`, unless known: the
    /// write was counted as a new entry, so ``count`` and ``totalSize`` come down by it.
    mutating func learn(_ key: String, base: ManifestBase) {
        guard var change = pending[key], change.base == nil else { return }
        if base.exists { count -= 1 }
        totalSize -= base.size
        change.base = base
        pending[key] = change
    }

    /// Looks up the rows replaced by staged writes not yet known (``stageWrite(_:_:inlineValue:)``),
    /// so that ``count`` and ``totalSize`` are exact.
    mutating func resolve(_ reader: ManifestReader) {
        guard !unresolved.isEmpty else { return }
        for key in unresolved where pending[key].map({ $0.base == nil }) ?? false {
            // A row that cannot be read now stays unknown: the flush learns it.
            let row: DiskRecord?
            do { row = try reader.lookUpRecord(forKey: key) } catch { continue }
            learn(key, base: row.map(ManifestBase.init) ?? .none)
        }
        unresolved.removeAll(keepingCapacity: true)
    }

    mutating func recordHit() {
        hits += 1
        unflushedHits += 1
    }

    mutating func recordMiss() {
        misses += 1
        unflushedMisses += 1
    }

    /// Takes back a hit already counted (the counters the next flush adds may go below
    /// zero when a flush saved it meanwhile) and counts a miss instead.
    mutating func turnHitIntoMiss() {
        hits -= 1
        unflushedHits -= 1
        recordMiss()
    }
}

/// The last-access date and sliding deadline of a read entry, for the next flush.
struct AccessChange: Sendable, Hashable {
    var accessed: Double
    var expires: Double?
}
/// A write or removal the manifest does not have yet.
struct PendingChange: Sendable {
    enum Value: Sendable {
        case write(DiskRecord, inlineValue: Data?)
        case remove

        /// Whether the key has an entry once the change is written, and its size.
        var result: (exists: Bool, size: Int) {
            switch self {
            case .write(let record, _): return (true, record.size)
            case .remove: return (false, 0)
            }
        }
    }

    var value: Value
    /// Orders changes, so that a flush only clears the changes it wrote.
    var sequence: UInt64
    /// Files of writes this change replaced before they were committed (or while they were
    /// being committed): deleted once this change, or a later one, is committed.
    var obsoleteFiles: [String]
    /// The manifest row the change replaces, `nil` while not known (a write staged without
    /// looking it up; the flush learns it before it writes the change).
    var base: ManifestBase?

    /// The file the change's row names, if any.
    var file: String? {
        guard case .write(let record, _) = value else { return nil }
        return record.file
    }

    /// The files no row names once this change is committed: those it replaced before its
    /// commit, and the replaced row's. File names are never reused, so deleting them never
    /// touches a newer value's file.
    var filesLeftByCommit: [String] {
        var files = obsoleteFiles
        if let old = base?.file { files.append(old) }
        let own = file
        return files.filter { $0 != own }
    }
}

/// What of a manifest row the count and size depend on, and the file it names.
struct ManifestBase: Sendable, Equatable {
    var exists: Bool
    var size: Int
    var file: String?

    /// No row.
    static let none = ManifestBase(exists: false, size: 0, file: nil)

    init(exists: Bool, size: Int, file: String?) {
        self.exists = exists
        self.size = size
        self.file = file
    }

    /// The row of `record`.
    init(_ record: DiskRecord) {
        self.init(exists: true, size: record.size, file: record.file)
    }
}

/// Whether a background flush is on its way.
enum FlushSchedule {
    case idle
    /// Scheduled for the last-access dates of reads alone (``DiskCache/accessFlushDelay``):
    /// a write brings it forward to its own delay.
    case accessDates
    case delayed
    case immediate
}
