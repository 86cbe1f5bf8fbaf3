import Foundation
import StashCore

/// One entry of the log: a set, a set with an expiry date, a removal, or a removal of all.
///
/// On disk (little-endian):
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 4 | total length of the record, header included |
/// | 4 | 4 | CRC-32 of bytes 0..<4 and 8..<length |
/// | 8 | 1 | kind |
/// | 9 | 1 | value tag (0 when there is no value) |
/// | 10 | 2 | key length in bytes |
/// | 12 | 8 | expiry (seconds since 1970, as a Double), only for `setExpiring` |
/// | … | | key (UTF-8), then the value's payload up to the end |
struct Record {
    enum Kind: UInt8 {
        case set = 1, setExpiring, remove, removeAll
    }

    static let headerSize = 12
    static let maximumKeyLength = Int(UInt16.max)
    static let maximumLength = 256 << 20

    var kind: Kind
    var key: String
    var value: PreferenceValue?
    /// Seconds since 1970 after which the value is gone.
    var expiry: Double?
    /// The record's size in the file.
    var length: Int
}

extension ByteBuffer {
    /// Replaces the buffer's content with one complete record, checksum included.
    ///
    /// - throws: ``StashError/Code/invalidKey`` for an empty or over-long key,
    ///   ``StashError/Code/unsupportedValue`` for a value too large for one record.
    func encodeRecord(_ kind: Record.Kind, key: String, value: PreferenceValue?, expiry: Double?) throws {
        removeAll()
        let keyLength = key.utf8.count
        if kind != .removeAll {
            guard keyLength > 0 else { throw StashError(.invalidKey, "a key may not be empty", key: key) }
            guard keyLength <= Record.maximumKeyLength else {
                throw StashError(.invalidKey, "a key may not be longer than \(Record.maximumKeyLength) bytes", key: String(key.prefix(64)))
            }
        }
        append(UInt32(0))
        append(UInt32(0))
        append(kind.rawValue)
        append(value?.tag.rawValue ?? 0)
        append(UInt16(kind == .removeAll ? 0 : keyLength))
        if kind == .setExpiring { append((expiry ?? 0).bitPattern) }
        if kind != .removeAll { append(key) }
        if let value { appendPayload(value) }
        guard count <= Record.maximumLength else {
            throw StashError(.unsupportedValue, "a value may not be larger than \(Record.maximumLength >> 20) MB", key: key)
        }
        patch(UInt32(count), at: 0)
        patch(Record.checksum(base, length: count), at: 4)
    }
}

extension Record {
    /// The checksum of the record of `length` bytes at `start`.
    static func checksum(_ start: UnsafeRawPointer, length: Int) -> UInt32 {
        var crc = CRC32()
        crc.update(UnsafeRawBufferPointer(start: start, count: 4))
        crc.update(UnsafeRawBufferPointer(start: start + 8, count: length - 8))
        return crc.value
    }

    /// Reads and verifies the record at `offset`, which must end at or before `limit`.
    ///
    /// - returns: `nil` when the bytes are not a whole, intact record (torn, corrupt, or the
    ///   zeroes after the last record).
    static func read(_ base: UnsafeRawPointer, at offset: Int, limit: Int) -> Record? {
        guard limit - offset >= headerSize else { return nil }
        let start = base + offset
        let length = Int(UInt32(littleEndian: start.loadUnaligned(as: UInt32.self)))
        guard length >= headerSize, length <= limit - offset else { return nil }
        let stored = UInt32(littleEndian: start.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
        guard checksum(start, length: length) == stored else { return nil }
        guard let kind = Kind(rawValue: start.load(fromByteOffset: 8, as: UInt8.self)) else { return nil }
        let tag = start.load(fromByteOffset: 9, as: UInt8.self)
        let keyLength = Int(UInt16(littleEndian: start.loadUnaligned(fromByteOffset: 10, as: UInt16.self)))
        var cursor = headerSize
        var expiry: Double?
        if kind == .setExpiring {
            guard length - cursor >= 8 else { return nil }
            expiry = Double(bitPattern: UInt64(littleEndian: start.loadUnaligned(fromByteOffset: cursor, as: UInt64.self)))
            cursor += 8
        }
        guard length - cursor >= keyLength else { return nil }
        let key = String(decoding: UnsafeRawBufferPointer(start: start + cursor, count: keyLength), as: UTF8.self)
        cursor += keyLength
        var value: PreferenceValue?
        if kind == .set || kind == .setExpiring {
            let payload = UnsafeRawBufferPointer(start: start + cursor, count: length - cursor)
            guard let decoded = try? PreferenceValue(tag: tag, payload: payload) else { return nil }
            value = decoded
        }
        return Record(kind: kind, key: key, value: value, expiry: expiry, length: length)
    }
}
