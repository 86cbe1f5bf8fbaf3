public import Foundation

/// Reads fields from bytes that may be corrupt or hostile: every read is bounds-checked and
/// a short or malformed read throws `StashError(.corruptFile)` instead of trapping.
///
/// The one binary decoder of the package: the preferences log records, the stored HTTP
/// response encoding and the vault file header all read through it. Integers are read in the
/// byte order the format names; variable-length integers are unsigned LEB128.
///
/// ```swift
/// let (version, name) = try BinaryReader.read(data) { reader in
///     (try reader.read(UInt16.self), try reader.readString(count: Int(try reader.readVarInt())))
/// }
/// ```
///
/// A reader borrows its bytes: use it only inside the closure that lent them.
@frozen @usableFromInline
package struct BinaryReader {
    /// The bytes being read.
    @usableFromInline package let bytes: UnsafeRawBufferPointer
    /// The position of the next read, from the start of `bytes`.
    @usableFromInline package private(set) var offset: Int

    @inlinable
    package init(_ bytes: UnsafeRawBufferPointer, offset: Int = 0) {
        self.bytes = bytes
        self.offset = min(max(0, offset), bytes.count)
    }

    /// Runs `body` with a reader over the bytes of `data`.
    @inlinable
    package static func read<Bytes: ContiguousBytes, Result>(
        _ data: Bytes, from offset: Int = 0, _ body: (inout BinaryReader) throws -> Result
    ) rethrows -> Result {
        try data.withUnsafeBytes { buffer in
            var reader = BinaryReader(buffer, offset: offset)
            return try body(&reader)
        }
    }

    /// How many bytes are left.
    @inlinable
    package var remaining: Int { bytes.count - offset }

    /// Whether every byte has been read.
    @inlinable
    package var isAtEnd: Bool { offset >= bytes.count }

    /// Reads a fixed-width integer stored in `byteOrder`.
    @inlinable
    package mutating func read<T: FixedWidthInteger>(_: T.Type, _ byteOrder: ByteOrder = .littleEndian) throws -> T {
        let size = MemoryLayout<T>.size
        guard remaining >= size, let base = bytes.baseAddress else { throw Self.shortRead(size, at: offset) }
        let raw = base.loadUnaligned(fromByteOffset: offset, as: T.self)
        offset += size
        return byteOrder == .littleEndian ? T(littleEndian: raw) : T(bigEndian: raw)
    }

    /// Reads one byte.
    @inlinable
    package mutating func readByte() throws -> UInt8 { try read(UInt8.self) }

    /// Reads an unsigned LEB128 integer (7 bits a byte, low bits first), at most 10 bytes.
    @inlinable
    package mutating func readVarInt() throws -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        let start = offset
        while true {
            guard offset < bytes.count else { throw Self.shortRead(1, at: offset) }
            let byte = bytes[offset]
            offset += 1
            if shift == 63, byte > 1 { throw Self.malformed("variable-length integer overflows 64 bits", at: start) }
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
            if shift > 63 { throw Self.malformed("variable-length integer longer than 10 bytes", at: start) }
        }
    }

    /// Reads a variable-length integer that counts bytes or items, refusing any count larger
    /// than the bytes left (a hostile length never makes the caller allocate).
    @inlinable
    package mutating func readCount() throws -> Int {
        let start = offset
        let value = try readVarInt()
        guard value <= UInt64(remaining) else {
            throw Self.malformed("length \(value) exceeds the \(remaining) bytes left", at: start)
        }
        return Int(value)
    }

    /// Borrows the next `count` bytes (valid as long as the reader's bytes are).
    @inlinable
    package mutating func readBytes(count: Int) throws -> UnsafeRawBufferPointer {
        guard count >= 0, remaining >= count else { throw Self.shortRead(count, at: offset) }
        let slice = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)])
        offset += count
        return slice
    }

    /// Copies the next `count` bytes.
    @inlinable
    package mutating func readArray(count: Int) throws -> [UInt8] {
        Array(try readBytes(count: count))
    }

    /// Reads `count` bytes of UTF-8, refusing invalid sequences.
    @inlinable
    package mutating func readString(count: Int) throws -> String {
        let start = offset
        let slice = try readBytes(count: count)
        var iterator = slice.makeIterator()
        var decoder = UTF8()
        decoding: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: break decoding
            case .error: throw Self.malformed("invalid UTF-8", at: start)
            }
        }
        return String(decoding: slice, as: UTF8.self)
    }

    /// Skips `count` bytes.
    @inlinable
    package mutating func skip(_ count: Int) throws {
        guard count >= 0, remaining >= count else { throw Self.shortRead(count, at: offset) }
        offset += count
    }

    /// Moves to an absolute position within the bytes.
    @inlinable
    package mutating func seek(to position: Int) throws {
        guard position >= 0, position <= bytes.count else {
            throw Self.malformed("position \(position) is outside the \(bytes.count) bytes", at: offset)
        }
        offset = position
    }

    @usableFromInline
    static func shortRead(_ count: Int, at offset: Int) -> StashError {
        StashError(.corruptFile, "unexpected end of data: \(count) bytes needed at offset \(offset)")
    }

    @usableFromInline
    static func malformed(_ what: String, at offset: Int) -> StashError {
        StashError(.corruptFile, "\(what) at offset \(offset)")
    }
}

/// The byte order of a fixed-width integer field.
@usableFromInline
package enum ByteOrder: Sendable {
    case littleEndian
    case bigEndian
}
