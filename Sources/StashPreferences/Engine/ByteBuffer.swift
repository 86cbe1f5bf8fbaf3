import Foundation
import StashCore

/// A growable byte buffer that is reused for every record, so that encoding a record does
/// not allocate once the buffer has reached the size of the largest value.
///
/// Not thread-safe: the engine owns one and uses it under its lock.
final class ByteBuffer {
    private(set) var base: UnsafeMutableRawPointer
    private(set) var capacity: Int
    private(set) var count = 0

    init(capacity: Int = 256) {
        self.capacity = capacity
        base = .allocate(byteCount: capacity, alignment: 8)
    }

    deinit { base.deallocate() }

    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    func removeAll() { count = 0 }

    /// Makes room for `extra` more bytes.
    @inline(__always)
    func reserve(_ extra: Int) {
        let needed = count + extra
        guard needed > capacity else { return }
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let newBase = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 8)
        newBase.copyMemory(from: base, byteCount: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    @inline(__always)
    func append<T: FixedWidthInteger>(_ value: T) {
        reserve(MemoryLayout<T>.size)
        base.storeBytes(of: value.littleEndian, toByteOffset: count, as: T.self)
        count += MemoryLayout<T>.size
    }

    @inline(__always)
    func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        reserve(bytes.count)
        (base + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }

    @inline(__always)
    func append(_ string: String) {
        var string = string
        string.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    func append(_ data: Data) {
        data.withUnsafeBytes { append($0) }
    }

    /// Overwrites 4 bytes written earlier (a length that is known only afterwards).
    func patch(_ value: UInt32, at offset: Int) {
        base.storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt32.self)
    }
}

/// Reads little-endian fields from bytes that may be corrupt: every read is bounds-checked
/// and a short read throws instead of trapping.
struct ByteReader {
    let bytes: UnsafeRawBufferPointer
    private(set) var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    var remaining: Int { bytes.count - offset }

    mutating func read<T: FixedWidthInteger>(_: T.Type) throws -> T {
        guard remaining >= MemoryLayout<T>.size, let base = bytes.baseAddress else { throw ByteReader.malformed }
        let value = T(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: T.self))
        offset += MemoryLayout<T>.size
        return value
    }

    mutating func read(count: Int) throws -> UnsafeRawBufferPointer {
        guard count >= 0, remaining >= count else { throw ByteReader.malformed }
        let slice = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)])
        offset += count
        return slice
    }

    static let malformed = StashError(.corruptFile, "malformed value")
}
