public import Foundation

/// Builds binary records: fixed-width integers in a named byte order, LEB128 variable-length
/// integers, raw bytes and UTF-8 strings. The one binary encoder of the package, paired with
/// ``BinaryReader``.
///
/// A writer kept across calls and cleared with `removeAll()` keeps its capacity, so a store
/// that encodes every record through one writer stops allocating once it has seen its largest
/// record.
///
/// ```swift
/// var writer = BinaryWriter()
/// writer.write(UInt16(1))
/// writer.writeVarInt(UInt64(name.utf8.count))
/// writer.write(name)
/// let data = writer.data
/// ```
///
/// `@usableFromInline` on this package type (and on the members its `@inlinable` code
/// touches) is what lets other modules inline those members: without it they still compile
/// but are called out of line, with a retain of the buffer around each call (a seventh of a
/// preference write). ``BinaryReader`` and ``StoredKey`` follow the same rule.
@frozen @usableFromInline
package struct BinaryWriter {
    /// The bytes written so far.
    @usableFromInline package private(set) var bytes: [UInt8]

    @inlinable
    package init(capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// How many bytes have been written.
    @inlinable
    package var count: Int { bytes.count }

    /// The bytes written, as `Data`.
    @inlinable
    package var data: Data { Data(bytes) }

    /// Forgets the bytes written, keeping the capacity.
    @inlinable
    package mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }

    /// Appends a fixed-width integer in `byteOrder`.
    @inlinable
    package mutating func write<T: FixedWidthInteger>(_ value: T, _ byteOrder: ByteOrder = .littleEndian) {
        let stored = byteOrder == .littleEndian ? value.littleEndian : value.bigEndian
        Swift.withUnsafeBytes(of: stored) { bytes.append(contentsOf: $0) }
    }

    /// Appends an unsigned LEB128 integer (1 to 10 bytes).
    @inlinable
    package mutating func writeVarInt(_ value: UInt64) {
        if value < 0x80 {
            bytes.append(UInt8(value))
            return
        }
        // Encoded aside and appended at once: one capacity check, not one per byte.
        var encoded: (UInt64, UInt64) = (0, 0)
        let count = Swift.withUnsafeMutableBytes(of: &encoded) { buffer -> Int in
            var value = value
            var count = 0
            while value >= 0x80 {
                buffer[count] = UInt8(truncatingIfNeeded: value) | 0x80
                value >>= 7
                count += 1
            }
            buffer[count] = UInt8(value)
            return count + 1
        }
        Swift.withUnsafeBytes(of: &encoded) { bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: $0[..<count])) }
    }

    /// Appends raw bytes.
    @inlinable
    package mutating func write(_ raw: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: raw)
    }

    /// Appends raw bytes.
    @inlinable
    package mutating func write<Bytes: Sequence>(contentsOf raw: Bytes) where Bytes.Element == UInt8 {
        bytes.append(contentsOf: raw)
    }

    /// Appends the UTF-8 of `string`, without a length (write one before it if needed).
    @inlinable
    package mutating func write(_ string: String) {
        var string = string
        string.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// Appends the length of `raw` as a variable-length integer, then its bytes.
    @inlinable
    package mutating func writeCounted<Bytes: Collection>(_ raw: Bytes) where Bytes.Element == UInt8 {
        writeVarInt(UInt64(raw.count))
        bytes.append(contentsOf: raw)
    }

    /// Appends the UTF-8 length of `string` as a variable-length integer, then its UTF-8.
    @inlinable
    package mutating func writeCounted(_ string: String) {
        writeVarInt(UInt64(string.utf8.count))
        write(string)
    }

    /// Overwrites a fixed-width integer written earlier at `offset` (a length or checksum
    /// known only once the rest is written).
    @inlinable
    package mutating func patch<T: FixedWidthInteger>(_ value: T, at offset: Int, _ byteOrder: ByteOrder = .littleEndian) {
        precondition(offset >= 0 && offset + MemoryLayout<T>.size <= bytes.count, "patch outside the written bytes")
        let stored = byteOrder == .littleEndian ? value.littleEndian : value.bigEndian
        Swift.withUnsafeBytes(of: stored) { source in
            for index in 0..<source.count { bytes[offset + index] = source[index] }
        }
    }

    /// Lends the bytes written so far.
    @inlinable
    package func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes(body)
    }
}
