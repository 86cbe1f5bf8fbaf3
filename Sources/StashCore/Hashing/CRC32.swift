import CStashChecksum

/// CRC-32 (IEEE 802.3, the polynomial of zlib and PNG). Runs of 64 bytes or more are folded
/// 16 bytes at a time with the processor's carry-less multiply where it has one (x86-64's
/// PCLMULQDQ, in `CStashChecksum`); the rest is computed eight bytes at a time
/// ("slicing-by-8": eight 256-entry tables, one per byte position), then a byte at a time.
///
/// Every group of records of a preferences log carries one, so that a torn or corrupt
/// group is recognised on open and cut off instead of being read as values (opening a log
/// verifies every group, so this loop is a large part of an open's work); so does every
/// record of a disk cache's value log, checked on each read.
///
/// ```swift
/// var crc = CRC32()
/// crc.update(UnsafeRawBufferPointer(start: bytes, count: count))
/// let checksum = crc.value   // "123456789" gives 0xCBF43926
/// ```
package struct CRC32 {

    /// Table `k` (entries `256 * k ..< 256 * (k + 1)`) advances a byte through `k` more
    /// zero bytes; table 0 is the classic byte-at-a-time table.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for index in 0..<256 {
            var crc = UInt32(index)
            for _ in 0..<8 {
                crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1
            }
            tables[index] = crc
        }
        for slice in 1..<8 {
            for index in 0..<256 {
                let previous = tables[(slice - 1) * 256 + index]
                tables[slice * 256 + index] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    private var state: UInt32 = 0xFFFF_FFFF

    package init() {}

    /// Continues a checksum whose value so far is `value` (a group's CRC from a header).
    package init(resuming value: UInt32) {
        state = value ^ 0xFFFF_FFFF
    }

    /// The checksum of everything passed to `update` so far.
    package var value: UInt32 { state ^ 0xFFFF_FFFF }

    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard var cursor = bytes.baseAddress else { return }
        var count = bytes.count
        var crc = state
        if count >= 64 {
            let folded = stash_crc32_fold(&crc, cursor.assumingMemoryBound(to: UInt8.self), count)
            cursor += folded
            count -= folded
        }
        CRC32.tables.withUnsafeBufferPointer { tables in
            let table = tables.baseAddress!
            @inline(__always) func lookup(_ slice: Int, _ byte: UInt32) -> UInt32 {
                table[slice &* 256 &+ Int(byte & 0xFF)]
            }
            while count >= 8 {
                let low = UInt32(littleEndian: cursor.loadUnaligned(as: UInt32.self)) ^ crc
                let high = UInt32(littleEndian: cursor.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
                crc = lookup(7, low) ^ lookup(6, low >> 8) ^ lookup(5, low >> 16) ^ lookup(4, low >> 24)
                    ^ lookup(3, high) ^ lookup(2, high >> 8) ^ lookup(1, high >> 16) ^ lookup(0, high >> 24)
                cursor += 8
                count -= 8
            }
            while count > 0 {
                crc = lookup(0, crc ^ UInt32(cursor.load(as: UInt8.self))) ^ (crc >> 8)
                cursor += 1
                count -= 1
            }
        }
        state = crc
    }

    /// The checksum of `count` bytes at `start`.
    package static func checksum(_ start: UnsafeRawPointer, count: Int) -> UInt32 {
        var crc = CRC32()
        crc.update(UnsafeRawBufferPointer(start: start, count: count))
        return crc.value
    }
}
