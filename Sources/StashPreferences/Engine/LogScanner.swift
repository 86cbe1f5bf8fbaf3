import Foundation
import StashCore

/// Reads the records of a log, verifying each, and steps over damage: after a record that
/// fails its checksum it looks for the next offset where an intact record starts
/// (records are self-delimiting and checksummed), so one bad byte costs only the records it
/// touches, not every record after it.
struct LogScanner {
    /// What a scan found.
    struct Result {
        /// Just past the last intact record.
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

    /// The intact record at `offset`, or `nil`.
    @inline(__always)
    func read(_ base: UnsafeRawPointer, at offset: Int, limit: Int) -> Record? {
        version == FormatVersion1.version
            ? FormatVersion1.read(base, at: offset, limit: limit)
            : Record.read(base, at: offset, limit: limit)
    }

    /// How many records `start..<limit` holds, counted from their lengths alone (no
    /// checksum, no decoding): what an open reserves in its index before reading them, so
    /// that the index is not rehashed again and again as it grows (that was half the time of
    /// opening a large log). Counting stops at the first bytes that cannot start a record:
    /// an estimate, never a verdict on the records.
    func countRecords(_ base: UnsafeRawPointer, from start: Int, to limit: Int) -> Int {
        var count = 0
        var offset = start
        while offset < limit {
            let length: Int
            if version == FormatVersion1.version {
                guard limit - offset >= FormatVersion1.recordHeaderSize else { break }
                length = Int(UInt32(littleEndian: (base + offset).loadUnaligned(as: UInt32.self)))
                guard length >= FormatVersion1.recordHeaderSize, length <= limit - offset else { break }
            } else {
                guard let frame = Record.frame(base, at: offset, limit: limit) else { break }
                length = frame.length
            }
            count += 1
            offset += length
        }
        return count
    }

    /// Reads the records in `start..<limit`, calling `visit` with each intact one and its
    /// offset, in file order.
    ///
    /// - parameters:
    ///   - resync: Whether to look for intact records after a damaged one; without it the
    ///     scan stops at the first damage.
    ///   - ignoringZeroTail: Whether zero bytes at the end are free space rather than damage
    ///     (when the header's end is not trusted).
    func scan(
        _ base: UnsafeRawPointer, from start: Int, to limit: Int, resync: Bool = true, ignoringZeroTail: Bool = false,
        _ visit: (Record, Int) -> Void
    ) -> Result {
        var result = Result(end: start)
        var offset = start
        while offset < limit {
            if let record = read(base, at: offset, limit: limit) {
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
                    if read(base, at: candidate, limit: limit) != nil { damageEnd = candidate; break }
                    candidate += 1
                }
            }
            if damageEnd == limit, ignoringZeroTail {
                var last = limit
                while last > offset, base.load(fromByteOffset: last - 1, as: UInt8.self) == 0 { last -= 1 }
                if last == offset { break }
                damageEnd = last
                atTail = true
            }
            if version != FormatVersion1.version, let key = Record.damagedKey(base, at: offset, limit: limit) {
                result.damagedKeys.append(key)
            }
            result.damage.append(offset..<damageEnd)
            if atTail || damageEnd >= limit || !resync { break }
            offset = damageEnd
        }
        return result
    }
}
