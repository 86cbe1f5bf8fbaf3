/// CRC-32 (IEEE 802.3, the polynomial of zlib and PNG), table-driven.
///
/// Every record of a preferences log carries one, so that a torn or corrupt record is
/// recognised on open and cut off instead of being read as a value.
///
/// ```swift
/// var crc = CRC32()
/// crc.update(UnsafeRawBufferPointer(start: bytes, count: count))
/// let checksum = crc.value   // "123456789" gives 0xCBF43926
/// ```
struct CRC32 {
    private static let table: [UInt32] = (0..<256).map { index -> UInt32 in
        var crc = UInt32(index)
        for _ in 0..<8 {
            crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1
        }
        return crc
    }

    private var state: UInt32 = 0xFFFF_FFFF

    init() {}

    /// The checksum of everything passed to `update` so far.
    var value: UInt32 { state ^ 0xFFFF_FFFF }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var crc = state
        CRC32.table.withUnsafeBufferPointer { table in
            for byte in bytes {
                crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
            }
        }
        state = crc
    }

    /// The checksum of `count` bytes at `start`.
    static func checksum(_ start: UnsafeRawPointer, count: Int) -> UInt32 {
        var crc = CRC32()
        crc.update(UnsafeRawBufferPointer(start: start, count: count))
        return crc.value
    }
}
