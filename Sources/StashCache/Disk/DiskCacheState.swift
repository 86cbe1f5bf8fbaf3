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
    var sequence: UInt64 = 0
    /// The number of entries and their total size, expired ones not yet swept included.
    var count: Int
    var totalSize: Int
    var pendingBytes = 0
    var flush = FlushSchedule.idle
    var needsTrim = false
    var lastSweep: Double
    /// Hits and misses recorded in the manifest before this session, then this session's.
    var hits: Int
    var misses: Int
    var unflushedHits = 0
    var unflushedMisses = 0
    var isClosed = false
    /// The error of the last flush when it failed for lack of disk space: writes are refused
    /// with `.diskFull` until a flush succeeds.
    var diskFull: StashError?
    /// Background flushes failed in a row: the retry backs off with each, and only the first
    /// is logged.
    var failedFlushes = 0

    init(counters: ManifestCounters, now: Double) {
        count = counters.count
        totalSize = counters.bytes
        hits = counters.hits
        misses = counters.misses
        lastSweep = now
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
        guard !touched.isEmpty, let access = touched[key] else { return }
        record.accessed = access.accessed
        record.expires = access.expires
    }

    mutating func stageWrite(_ key: String, _ record: DiskRecord, inlineValue: Data?, reader: ManifestReader) {
        let old = current(key, reader)
        if old == nil { count += 1 }
        totalSize += record.size - (old?.size ?? 0)
        enqueue(key, .write(record, inlineValue: inlineValue), leavesFile: old.map { !$0.isInline } ?? false)
        pendingBytes += inlineValue?.count ?? 0
    }

    @discardableResult
    mutating func stageRemoval(_ key: String, reader: ManifestReader) -> Bool {
        guard let old = current(key, reader) else { return false }
        stageRemoval(key, old: old)
        return true
    }

    /// Stages the removal of `key`, whose entry is `old` now.
    mutating func stageRemoval(_ key: String, old: DiskRecord) {
        count -= 1
        totalSize -= old.size
        enqueue(key, .remove, leavesFile: !old.isInline)
    }

    private mutating func enqueue(_ key: String, _ value: PendingChange.Value, leavesFile: Bool) {
        let previous = pending[key]
        if case .write(_, let data?)? = previous?.value { pendingBytes -= data.count }
        sequence += 1
        pending[key] = PendingChange(value: value, sequence: sequence, mayLeaveFile: leavesFile || previous?.mayLeaveFile == true)
        if !touched.isEmpty { touched[key] = nil }
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
    }

    var value: Value
    /// Orders changes, so that a flush only clears the changes it wrote.
    var sequence: UInt64
    /// Whether a file of this key may be left over once the change is in the manifest
    /// (a file-backed value replaced by an inline one, or removed).
    var mayLeaveFile: Bool

    /// Whether, once written, the key has no file.
    var leavesNoFile: Bool {
        switch value {
        case .remove: return true
        case .write(let record, _): return record.isInline
        }
    }
}

/// Whether a background flush is on its way.
enum FlushSchedule {
    case idle
    case delayed
    case immediate
}
