import Foundation
import StashCore
@testable import StashPreferences

/// Where the parts of a format version 3 log lie in its bytes, read with the engine's own
/// framing: for tests that damage a log on purpose.
enum LogLayout {
    /// A record or group end of the log.
    struct Item {
        var kind: Record.Kind
        var key: String
        var range: Range<Int>
        /// Which group holds it (0 for the first).
        var group: Int
    }

    static let slotOffsets = [56, 92]

    /// The newest commit slot whose checksum holds: its offset and its fields.
    static func newestCommit(_ bytes: Data) -> (offset: Int, commit: LogFile.Commit) {
        var best: (offset: Int, commit: LogFile.Commit)?
        bytes.withUnsafeBytes { raw in
            for offset in slotOffsets {
                let stored = raw.loadUnaligned(fromByteOffset: offset + 32, as: UInt32.self)
                guard stored == CRC32.checksum(raw.baseAddress! + offset, count: 32) else { continue }
                let commit = LogFile.Commit(
                    counter: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self),
                    end: Int(raw.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)),
                    groupStart: Int(raw.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self)),
                    groupCRC: raw.loadUnaligned(fromByteOffset: offset + 24, as: UInt32.self),
                    retired: raw.loadUnaligned(fromByteOffset: offset + 28, as: UInt32.self) != 0
                )
                if best == nil || commit.counter > best!.commit.counter { best = (offset, commit) }
            }
        }
        return best!
    }

    /// Rewrites the commit slot at `offset` as a writer would, checksum included.
    static func setCommit(_ bytes: inout Data, slot offset: Int, _ commit: LogFile.Commit) {
        func put<T: FixedWidthInteger>(_ value: T, _ at: Int) {
            withUnsafeBytes(of: value.littleEndian) { bytes.replaceSubrange((offset + at)..<(offset + at + $0.count), with: $0) }
        }
        put(commit.counter, 0)
        put(UInt64(commit.end), 8)
        put(UInt64(commit.groupStart), 16)
        put(commit.groupCRC, 24)
        put(UInt32(commit.retired ? 1 : 0), 28)
        put(bytes.withUnsafeBytes { CRC32.checksum($0.baseAddress! + offset, count: 32) }, 32)
    }

    /// The records and group ends up to the newest commit's end, in file order.
    static func items(_ bytes: Data) -> [Item] {
        let end = newestCommit(bytes).commit.end
        var items: [Item] = []
        var group = 0
        bytes.withUnsafeBytes { raw in
            var offset = LogFile.headerSize
            while offset < end, let frame = RecordFrame(raw.baseAddress!, at: offset, limit: end) {
                items.append(Item(kind: frame.kind, key: frame.readableKey(raw.baseAddress!) ?? "", range: offset..<frame.end, group: group))
                if frame.kind == .groupEnd { group += 1 }
                offset = frame.end
            }
        }
        return items
    }

    /// The records (group ends left out), in file order.
    static func records(_ bytes: Data) -> [Item] {
        items(bytes).filter { $0.kind != .groupEnd }
    }

    /// The bytes of the group holding record `index` (its group end included) and the keys
    /// of its records.
    static func group(ofRecord index: Int, in bytes: Data) -> (range: Range<Int>, keys: [String]) {
        let items = items(bytes)
        let number = records(bytes)[index].group
        let members = items.filter { $0.group == number }
        return (members.first!.range.lowerBound..<members.last!.range.upperBound, members.filter { $0.kind != .groupEnd }.map(\.key))
    }
}
