import Foundation
import StashCore

/// The open group of a log being written (see ``Record``): where it starts, the running
/// CRC-32 of its records, how many it holds. Appending a record to the log goes through
/// it, and so does closing the group with its group end once it is full.
///
/// ```swift
/// var group = RecordGroup(start: LogFile.headerSize)
/// end = group.append(recordBytes, to: base, at: end)   // closes the group when full
/// file.publish(group.commit(counter: counter, end: end))
/// ```
struct RecordGroup {
    private(set) var start: Int
    private(set) var checksum = CRC32()
    private(set) var count = 0
    private var endEncoder = RecordEncoder()

    init(start: Int) {
        self.start = start
    }

    /// Resumes the open group that a commit describes, holding `count` records.
    init(resuming commit: LogFile.Commit, count: Int) {
        start = commit.groupStart
        checksum = CRC32(resuming: commit.groupCRC)
        self.count = count
    }

    /// Copies one encoded record to `offset` in the mapping at `base` (the log's end, with
    /// room for it and a group end), and closes the group when it is full.
    ///
    /// - returns: The log's new end.
    mutating func append(_ record: UnsafeRawBufferPointer, to base: UnsafeMutableRawPointer, at offset: Int) -> Int {
        (base + offset).copyMemory(from: record.baseAddress!, byteCount: record.count)
        checksum.update(record)
        count += 1
        let end = offset + record.count
        guard count >= Record.groupRecords || end - start >= Record.groupBytes else { return end }
        return close(base, at: end)
    }

    /// Counts a record that another process appended to this group (already in the file).
    mutating func include(_ record: UnsafeRawBufferPointer) {
        checksum.update(record)
        count += 1
    }

    /// Appends the group end at `offset`, the log's end, when the group holds records, and
    /// starts the next group after it.
    ///
    /// - returns: The log's new end.
    mutating func close(_ base: UnsafeMutableRawPointer, at offset: Int) -> Int {
        guard count > 0 else { return offset }
        endEncoder.encodeGroupEnd(length: offset - start, checksum: checksum.value)
        let end = endEncoder.withBytes { bytes in
            (base + offset).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
            return offset + bytes.count
        }
        start = end
        checksum = CRC32()
        count = 0
        return end
    }

    /// The commit that publishes the log up to `end`, this group open.
    func commit(counter: UInt64, end: Int) -> LogFile.Commit {
        LogFile.Commit(counter: counter, end: end, groupStart: start, groupCRC: checksum.value)
    }
}
