import Foundation
import StashCore

/// Reads the records of a log, verifying them, and steps over damage: after a group (format
/// version 3) or a record (versions 1 and 2) that fails its checksum, it looks for the next
/// offset where an intact one starts, so one bad byte costs only the group or record it
/// touches, not everything after it.
struct LogScanner {
    /// What a scan found.
    struct Result {
        /// Just past the last intact record (or group end).
        var end: Int
        /// How many intact records were read.
        var kept = 0
        /// The byte ranges that held no intact record.
        var damage: [Range<Int>] = []
        /// The keys still readable in damaged records (their values were not trusted).
        var damagedKeys: [String] = []

        var damagedBytes: Int { damage.reduce(0) { $0 + $1.count } }
        /// Whether damage was followed by intact records (not only a torn tail).
        var hasDamageInside: Bool { damage.contains { $0.upperBound <= end } }
    }

    /// The format version the records are written in.
    var version: UInt32

    /// The intact version 1 or 2 record at `offset`, or `nil`.
    @inline(__always)
    private func readSingle(_ base: UnsafeRawPointer, at offset: Int, limit: Int) -> Record? {
        version == FormatVersion1.version
            ? FormatVersion1.read(base, at: offset, limit: limit)
            : FormatVersion2.read(base, at: offset, limit: limit)
    }

    /// How many records `start..<limit` holds, counted from their lengths alone (no
    /// checksum, no decoding): what resuming an open group needs. Counting stops at the first
    /// bytes that cannot start a record.
    func countRecords(_ base: UnsafeRawPointer, from start: Int, to limit: Int) -> Int {
        countRecords(base, from: start, to: limit, stoppingAfter: limit).count
    }

    /// How many records `start..<limit` holds, estimated from the records in its first
    /// ``estimateSample`` bytes: what an open reserves in its index before reading them, so
    /// that the index is not rehashed again and again as it grows (that was half the time of
    /// opening a large log), without framing every record twice (counting them all was a
    /// twentieth of an open). When bytes that cannot start a record come first (a zero tail,
    /// damage), the records before them are the estimate. An estimate, never a verdict on the
    /// records; the caller caps it.
    func estimateRecords(_ base: UnsafeRawPointer, from start: Int, to limit: Int) -> Int {
        let stop = min(limit, start + LogScanner.estimateSample)
        let sample = countRecords(base, from: start, to: limit, stoppingAfter: stop)
        guard sample.count > 0, sample.end >= stop, sample.end < limit else { return max(0, sample.count) }
        let (quotient, remainder) = ((limit - start) * sample.count).quotientAndRemainder(dividingBy: sample.end - start)
        return quotient + (remainder > 0 ? 1 : 0)
    }

    /// How many bytes ``estimateRecords(_:from:to:)`` frames.
    static let estimateSample = 8 * 1024

    /// The records counted from `start`, up to the first one that ends at or after `stop`
    /// (or before `limit`, or bytes that cannot start a record), and where counting stopped.
    private func countRecords(
        _ base: UnsafeRawPointer, from start: Int, to limit: Int, stoppingAfter stop: Int
    ) -> (count: Int, end: Int) {
        var count = 0
        var offset = start
        while offset < stop {
            let length: Int
            switch version {
            case FormatVersion1.version:
                guard limit - offset >= FormatVersion1.recordHeaderSize else { return (count, offset) }
                length = Int(UInt32(littleEndian: (base + offset).loadUnaligned(as: UInt32.self)))
                guard length >= FormatVersion1.recordHeaderSize, length <= limit - offset else { return (count, offset) }
            case FormatVersion2.version:
                guard let frame = FormatVersion2.frame(base, at: offset, limit: limit) else { return (count, offset) }
                length = frame.length
            default:
                guard let frame = RecordFrame(base, at: offset, limit: limit) else { return (count, offset) }
                length = frame.end - offset
                if frame.kind == .groupEnd { count -= 1 }
            }
            count += 1
            offset += length
        }
        return (count, offset)
    }

    /// Reads the records in `start..<limit`, calling `visit` with each intact one and its
    /// offset, in file order.
    ///
    /// - parameters:
    ///   - commit: For format version 3, the header's commit, whose checksum covers the open
    ///     group (the records after the last group end); `nil` when the header is not
    ///     trusted: then only closed groups can be verified, and the open group is damage.
    ///   - resync: Whether to look for intact records after a damaged one (versions 1 and
    ///     2); without it the scan stops at the first damage.
    ///   - ignoringZeroTail: Whether zero bytes at the end are free space rather than damage
    ///     (when the header's end is not trusted).
    ///   - willVisit: Called (format version 3) before the records of each verified group
    ///     are visited, with the ``KeyHash`` of their keys' bytes in order, so that the
    ///     caller can fetch what it will need for all of them at once.
    func scan(
        _ base: UnsafeRawPointer, from start: Int, to limit: Int, commit: LogFile.Commit? = nil,
        resync: Bool = true, ignoringZeroTail: Bool = false, willVisit: (_ keyHashes: [UInt64]) -> Void = { _ in },
        _ visit: (Record, Int) -> Void
    ) -> Result {
        if version >= 3 {
            return scanGroups(base, from: start, to: limit, commit: commit, ignoringZeroTail: ignoringZeroTail, willVisit: willVisit, visit)
        }
        var result = Result(end: start)
        var offset = start
        while offset < limit {
            if let record = readSingle(base, at: offset, limit: limit) {
                visit(record, offset)
                offset += record.length
                result.end = offset
                result.kept += 1
                continue
            }
            var damageEnd = limit
            var atTail = false
            if resync {
                var candidate = offset + 1
                while candidate < limit {
                    if readSingle(base, at: candidate, limit: limit) != nil { damageEnd = candidate; break }
                    candidate += 1
                }
            }
            if damageEnd == limit, ignoringZeroTail {
                let last = LogScanner.lastNonZero(base, from: offset, to: limit)
                if last == offset { break }
                damageEnd = last
                atTail = true
            }
            if version == FormatVersion2.version, let key = FormatVersion2.damagedKey(base, at: offset, limit: limit) {
                result.damagedKeys.append(key)
            }
            result.damage.append(offset..<damageEnd)
            if atTail || damageEnd >= limit || !resync { break }
            offset = damageEnd
        }
        return result
    }

    // MARK: Format version 3

    /// Reads the closed groups of `start..<limit` (up to the commit's open group), then the
    /// open group.
    private func scanGroups(
        _ base: UnsafeRawPointer, from start: Int, to limit: Int, commit: LogFile.Commit?, ignoringZeroTail: Bool,
        willVisit: ([UInt64]) -> Void, _ visit: (Record, Int) -> Void
    ) -> Result {
        var result = Result(end: start)
        let closedEnd = commit.map { min($0.groupStart, limit) } ?? limit
        var offset = start
        // The frames of the group being read: each record is framed once, to find its group's
        // end, and decoded from that frame once the group's checksum held.
        var frames: [RecordFrame] = []
        var keyHashes: [UInt64] = []
        while offset < closedEnd {
            if let groupEnd = LogScanner.closedGroup(base, at: offset, limit: closedEnd, frames: &frames) {
                // Verified: the keys' hashes (computed while framing) go to `willVisit`, then
                // the records are decoded and visited (a record that does not decode, which
                // only a faulty writer could produce, makes the rest of its group damage).
                keyHashes.removeAll(keepingCapacity: true)
                frames.withUnsafeBufferPointer { frames in
                    for frame in frames { keyHashes.append(frame.keyHash?.hash ?? 0) }
                }
                willVisit(keyHashes)
                var cursor = offset
                for frame in frames {
                    guard let record = try? frame.decode(base, at: cursor) else { break }
                    visit(record, cursor)
                    result.kept += 1
                    cursor = frame.end
                }
                if cursor == groupEnd.recordsEnd {
                    offset = groupEnd.end
                    result.end = offset
                    continue
                }
                offset = cursor
            }
            var damageEnd = LogScanner.nextClosedGroup(base, after: offset, limit: closedEnd) ?? closedEnd
            if damageEnd == closedEnd, commit == nil, ignoringZeroTail {
                damageEnd = LogScanner.lastNonZero(base, from: offset, to: closedEnd)
                if damageEnd == offset { break }
            }
            result.damagedKeys += LogScanner.keys(base, in: offset..<damageEnd)
            result.damage.append(offset..<damageEnd)
            if damageEnd < closedEnd, commit == nil, ignoringZeroTail,
               LogScanner.lastNonZero(base, from: damageEnd, to: closedEnd) == damageEnd { break }
            offset = damageEnd
        }
        guard let commit, commit.groupStart < commit.end else { return result }
        let open = commit.groupStart..<commit.end
        var records: [(Record, Int)] = []
        if commit.end <= limit, CRC32.checksum(base + open.lowerBound, count: open.count) == commit.groupCRC,
           LogScanner.decode(base, open, into: &records) {
            for (record, at) in records { visit(record, at) }
            result.kept += records.count
            result.end = commit.end
            return result
        }
        // The open group failed (or the file ends inside it): its part in the file is damage.
        let inFile = open.clamped(to: start..<max(start, limit))
        if !inFile.isEmpty {
            result.damagedKeys += LogScanner.keys(base, in: inFile)
            result.damage.append(inFile)
        }
        return result
    }

    /// The closed group at `offset`: records up to a group end whose length and checksum
    /// cover exactly them. `nil` when there is none.
    static func closedGroup(_ base: UnsafeRawPointer, at offset: Int, limit: Int) -> (recordsEnd: Int, end: Int)? {
        var frames: [RecordFrame] = []
        return closedGroup(base, at: offset, limit: limit, frames: &frames, keepingFrames: false)
    }

    /// ``closedGroup(_:at:limit:)``, leaving the frames of the group's records in `frames`,
    /// their keys hashed (``RecordFrame/hashKey(_:)``), when `keepingFrames`.
    @inline(__always)
    static func closedGroup(
        _ base: UnsafeRawPointer, at offset: Int, limit: Int, frames: inout [RecordFrame], keepingFrames: Bool = true
    ) -> (recordsEnd: Int, end: Int)? {
        frames.removeAll(keepingCapacity: true)
        var cursor = offset
        while cursor < limit {
            guard var frame = RecordFrame(base, at: cursor, limit: limit) else { return nil }
            if frame.kind == .groupEnd {
                guard cursor > offset, frame.groupLength == cursor - offset,
                      CRC32.checksum(base + offset, count: cursor - offset) == frame.groupChecksum else { return nil }
                return (cursor, frame.end)
            }
            if keepingFrames {
                frame.hashKey(base)
                frames.append(frame)
            }
            cursor = frame.end
        }
        return nil
    }

    /// Where the first intact closed group after `offset` starts, found by its group end.
    static func nextClosedGroup(_ base: UnsafeRawPointer, after offset: Int, limit: Int) -> Int? {
        let marker = Record.Kind.groupEnd.rawValue << 4
        var candidate = offset + 1
        while candidate < limit {
            if base.load(fromByteOffset: candidate, as: UInt8.self) == marker,
               let frame = RecordFrame(base, at: candidate, limit: limit), frame.groupLength > 0,
               candidate - frame.groupLength > offset,
               let group = closedGroup(base, at: candidate - frame.groupLength, limit: limit), group.recordsEnd == candidate {
                return candidate - frame.groupLength
            }
            candidate += 1
        }
        return nil
    }

    /// Decodes the records that exactly fill `range` into `records`; `false` when they do
    /// not. Group ends among them are skipped when `skippingGroupEnds`, refused otherwise.
    static func decode(
        _ base: UnsafeRawPointer, _ range: Range<Int>, into records: inout [(Record, Int)], skippingGroupEnds: Bool = false
    ) -> Bool {
        records.removeAll(keepingCapacity: true)
        var cursor = range.lowerBound
        while cursor < range.upperBound {
            guard let frame = RecordFrame(base, at: cursor, limit: range.upperBound) else { return false }
            if frame.kind == .groupEnd {
                guard skippingGroupEnds else { return false }
            } else {
                guard let record = try? frame.decode(base, at: cursor) else { return false }
                records.append((record, cursor))
            }
            cursor = frame.end
        }
        return true
    }

    /// The open group that the bytes `start..<commit.end` leave when they are whole records
    /// (and group ends) that continue `group` and end as `commit` says (its open group's start
    /// and checksum); `nil` when they do not. What a process checks before it applies
    /// another's appends, and an open before it trusts a commit whose slot was torn.
    static func continuation(
        _ base: UnsafeRawPointer, of group: RecordGroup, from start: Int, to commit: LogFile.Commit
    ) -> RecordGroup? {
        var group = group
        var cursor = start
        while cursor < commit.end {
            guard let frame = RecordFrame(base, at: cursor, limit: commit.end) else { return nil }
            if frame.kind == .groupEnd {
                guard cursor > group.start, frame.groupLength == cursor - group.start,
                      frame.groupChecksum == group.checksum.value else { return nil }
                group = RecordGroup(start: frame.end)
            } else {
                group.include(UnsafeRawBufferPointer(start: base + cursor, count: frame.end - cursor))
            }
            cursor = frame.end
        }
        guard group.start == commit.groupStart, group.checksum.value == commit.groupCRC else { return nil }
        return group
    }

    /// The keys that the records at the start of a damaged range still show, in order,
    /// until the bytes stop framing as records.
    static func keys(_ base: UnsafeRawPointer, in range: Range<Int>) -> [String] {
        var keys: [String] = []
        var cursor = range.lowerBound
        while cursor < range.upperBound, let frame = RecordFrame(base, at: cursor, limit: range.upperBound) {
            if let key = frame.readableKey(base) { keys.append(key) }
            cursor = frame.end
        }
        return keys
    }

    /// Just past the last nonzero byte of `start..<limit` (`start` when all are zero).
    static func lastNonZero(_ base: UnsafeRawPointer, from start: Int, to limit: Int) -> Int {
        var last = limit
        while last > start, base.load(fromByteOffset: last - 1, as: UInt8.self) == 0 { last -= 1 }
        return last
    }
}
