import Foundation
import StashCore

/// Reading logs written by format version 2 (one checksum per record), so that a suite
/// written by an earlier Stash still opens. Like version 1, the first write migrates the
/// file to the current format (see ``PreferencesEngine/compactLocked(reserving:reencoding:)``).
///
/// Version 2 record (integers little-endian, lengths LEB128 varints):
///
/// | field | size | |
/// |---|---|---|
/// | checksum | 4 | CRC-32 of every byte that follows, up to the record's end |
/// | body length | 1-5 | varint: how many bytes the body has |
/// | kind and tag | 1 | kind in the high 4 bits, the value's tag in the low 4 (0: none) |
/// | key length | 1-3 | varint, absent for `removeAll` |
/// | key | | UTF-8 (NFC), absent for `removeAll` |
/// | expiry | 8 | seconds since 1970 as a Double, only for `setExpiring` |
/// | payload | | the value (see `ValueCoding.swift`), up to the body's end |
enum FormatVersion2 {
    static let version: UInt32 = 2
    /// Checksum, a one-byte length and the kind: the smallest record.
    static let minimumLength = 6

    /// Reads and verifies the record at `offset`, which must end at or before `limit`.
    ///
    /// - returns: `nil` when the bytes are not a whole, intact record (torn, corrupt, or the
    ///   zeroes after the last record).
    static func read(_ base: UnsafeRawPointer, at offset: Int, limit: Int) -> Record? {
        guard let (bodyStart, length) = frame(base, at: offset, limit: limit) else { return nil }
        let stored = UInt32(littleEndian: (base + offset).loadUnaligned(as: UInt32.self))
        guard CRC32.checksum(base + offset + 4, count: length - 4) == stored else { return nil }
        var reader = BinaryReader(UnsafeRawBufferPointer(start: base + bodyStart, count: offset + length - bodyStart))
        return try? decodeBody(&reader, length: length)
    }

    /// Where the body of a plausible record at `offset` starts and how long the record is,
    /// without verifying its checksum; `nil` when the bytes cannot start a record.
    static func frame(_ base: UnsafeRawPointer, at offset: Int, limit: Int) -> (bodyStart: Int, length: Int)? {
        guard limit - offset >= minimumLength else { return nil }
        var cursor = offset + 4
        var bodyLength = 0
        var shift = 0
        while true {
            guard cursor < limit, shift <= 28 else { return nil }
            let byte = base.load(fromByteOffset: cursor, as: UInt8.self)
            cursor += 1
            bodyLength |= Int(byte & 0x7F) << shift
            if byte & 0x80 == 0 { break }
            shift += 7
        }
        guard bodyLength > 0, bodyLength <= limit - cursor else { return nil }
        let kind = base.load(fromByteOffset: cursor, as: UInt8.self) >> 4
        guard kind >= 1, kind <= 4 else { return nil }
        return (cursor, cursor + bodyLength - offset)
    }

    /// Decodes a verified body.
    private static func decodeBody(_ reader: inout BinaryReader, length: Int) throws -> Record {
        let kindAndTag = try reader.readByte()
        guard let kind = Record.Kind(rawValue: kindAndTag >> 4), kind != .groupEnd else { throw BinaryReader.malformedRecord }
        let tag = kindAndTag & 0x0F
        if kind == .removeAll { return Record(kind: kind, key: "", value: nil, expiry: nil, length: length) }
        let keyLength = try reader.readCount()
        guard keyLength > 0, keyLength <= Record.maximumKeyLength else { throw BinaryReader.malformedRecord }
        let key = String(decoding: try reader.readBytes(count: keyLength), as: UTF8.self)
        var expiry: Double?
        if kind == .setExpiring { expiry = Double(bitPattern: try reader.read(UInt64.self)) }
        var value: PreferenceValue?
        if kind == .set || kind == .setExpiring {
            value = try PreferenceValue(tag: tag, payload: try reader.readBytes(count: reader.remaining))
        }
        return Record(kind: kind, key: key, value: value, expiry: expiry, length: length)
    }

    /// The key of a record that failed its checksum, when its bytes still hold one that
    /// reads as text: what a recovery report can name as possibly lost.
    static func damagedKey(_ base: UnsafeRawPointer, at offset: Int, limit: Int) -> String? {
        guard let (bodyStart, length) = frame(base, at: offset, limit: limit) else { return nil }
        var reader = BinaryReader(UnsafeRawBufferPointer(start: base + bodyStart, count: offset + length - bodyStart))
        guard let kindAndTag = try? reader.readByte(), kindAndTag >> 4 != Record.Kind.removeAll.rawValue,
              let keyLength = try? reader.readCount(), keyLength > 0,
              let key = try? reader.readString(count: keyLength) else { return nil }
        return key
    }
}
