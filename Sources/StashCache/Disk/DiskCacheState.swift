import Foundation
import StashCore

/// The mutable state of a disk cache, behind its lock.
///
/// `index` is the cache as callers see it: flushed entries and staged ones. `pending` holds
/// what the manifest does not have yet (the newest write or removal of each key, with the
/// inline value), `touched` the keys read since the last flush, whose access dates (and
/// sliding deadlines) the next flush records.
struct DiskCacheState {
    var index: [String: DiskRecord]
    var pending: [String: PendingChange] = [:]
    var touched: Set<String> = []
    var sequence: UInt64 = 0
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

    init(index: [String: DiskRecord], hits: Int, misses: Int, now: Double) {
        self.index = index
        self.totalSize = index.values.reduce(0) { $0 + $1.size }
        self.hits = hits
        self.misses = misses
        self.lastSweep = now
    }

    mutating func stageWrite(_ key: String, _ record: DiskRecord, inlineValue: Data?) {
        let old = index.updateValue(record, forKey: key)
        totalSize += record.size - (old?.size ?? 0)
        let leavesFile = old.map { !$0.isInline } ?? false
        enqueue(key, .write(record, inlineValue: inlineValue), leavesFile: leavesFile)
        pendingBytes += inlineValue?.count ?? 0
    }

    @discardableResult
    mutating func stageRemoval(_ key: String) -> Bool {
        guard let old = index.removeValue(forKey: key) else { return false }
        totalSize -= old.size
        enqueue(key, .remove, leavesFile: !old.isInline)
        return true
    }

    private mutating func enqueue(_ key: String, _ value: PendingChange.Value, leavesFile: Bool) {
        let previous = pending[key]
        if case .write(_, let data?)? = previous?.value { pendingBytes -= data.count }
        sequence += 1
        pending[key] = PendingChange(value: value, sequence: sequence, mayLeaveFile: leavesFile || previous?.mayLeaveFile == true)
        touched.remove(key)
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
