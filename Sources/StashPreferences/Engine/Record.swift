import Foundation
import StashCore

/// One entry of the log: a set, a set with an expiry date, a removal, or a removal of all.
///
/// On disk (format version 2; integers little-endian, lengths LEB128 varints):
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
///
/// A record is self-delimiting and checksummed, so a reader that meets a damaged one looks
/// for the next offset where an intact record starts (see ``LogScanner``). Format version 1
/// records are read by ``FormatVersion1``.
struct Record {
    enum Kind: UInt8 {
        case set = 1, setExpiring, remove, removeAll
    }

    /// Checksum, a one-byte length and the kind: the smallest record.
    static let minimumLength = 6
    static let maximumKeyLength = Int(UInt16.max)
    static let maximumLength = 256 << 20
    /// Room left in front of the body while encoding: checksum and the longest length varint.
    static let headRoom = 4 + 5

    var kind: Kind
    var key: String
    var value: PreferenceValue?
    /// Seconds since 1970 after which the value is gone.
    var expiry: Double?
    /// The record's size in the file.
    var length: Int
}

/// A record encoded in a reusable writer: ``bytes`` lends it, checksum included.
struct RecordEncoder {
    private var writer = BinaryWriter(capacity: 256)
    /// Where the record starts in the writer (the length varint's size decides it).
    private var start = Record.headRoom

    /// How many bytes the last encoded record has.
    var count: Int { writer.count - start }

    /// Lends the last encoded record.
    func withBytes<T>(_ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        try writer.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[start...])) }
    }

    /// Encodes one complete record, replacing the previous one.
    ///
    /// - throws: ``StashError/Code/invalidKey`` for an empty or over-long key,
    ///   ``StashError/Code/unsupportedValue`` for a value too large for one record.
    mutating func encode(_ kind: Record.Kind, key: String, value: PreferenceValue?, expiry: Double?) throws {
        writer.removeAll()
        for _ in 0..<Record.headRoom { writer.write(UInt8(0)) }
        writer.write(kind.rawValue << 4 | (value?.tag.rawValue ?? 0))
        if kind != .removeAll {
            let keyLength = key.utf8.count
            guard keyLength > 0 else { throw StashError(.invalidKey, "a key may not be empty", key: key) }
            guard keyLength <= Record.maximumKeyLength else {
                throw StashError(.invalidKey, "a key may not be longer than \(Record.maximumKeyLength) bytes", key: String(key.prefix(64)))
            }
            writer.writeVarInt(UInt64(keyLength))
            writer.write(key)
        }
        if kind == .setExpiring { writer.write((expiry ?? 0).bitPattern) }
        if let value { writer.writePayload(value) }
        let bodyLength = writer.count - Record.headRoom
        guard bodyLength + Record.headRoom <= Record.maximumLength else {
            throw StashError(.unsupportedValue, "a value may not be larger than \(Record.maximumLength >> 20) MB", key: key)
        }
        // The length varint goes just before the body, the checksum just before it.
        var lengthBytes: [UInt8] = []
        var remaining = UInt64(bodyLength)
        repeat {
            lengthBytes.append(UInt8(truncatingIfNeeded: remaining) & 0x7F | (remaining >= 0x80 ? 0x80 : 0))
            remaining >>= 7
        } while remaining > 0
        start = Record.headRoom - lengthBytes.count - 4
        for (index, byte) in lengthBytes.enumerated() { writer.patch(byte, at: start + 4 + index) }
        let checksum = writer.withUnsafeBytes { CRC32.checksum($0.baseAddress! + start + 4, count: writer.count - start - 4) }
        writer.patch(checksum, at: start)
    }
}

extension Record {
    /// Reads and verifies the record at `offset`, which must end at or before `limit`.
    ///
    /// - returns: `nil` when the bytes are not a whole, intact record (torn, corrupt, or the
    ///   zeroes after the last record).
    @inline(__always)
    static func read(_ base: UnsafeRawPointer, at offset: Int, limit: Int) -> Record? {
        guard let (bodyStart, length) = frame(base, at: offset, limit: limit) else { return nil }
        let stored = UInt32(littleEndian: (base + offset).loadUnaligned(as: UInt32.self))
        guard CRC32.checksum(base + offset + 4, count: length - 4) == stored else { return nil }
        var reader = BinaryReader(UnsafeRawBufferPointer(start: base + bodyStart, count: offset + length - bodyStart))
        return try? decodeBody(&reader, length: length)
    }

    /// Where the body of a plausible record at `offset` starts and how long the record is,
    /// without verifying its checksum; `nil` when the bytes cannot start a record.
    @inline(__always)
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
        guard let kind = Kind(rawValue: kindAndTag >> 4) else { throw BinaryReader.malformedRecord }
        let tag = kindAndTag & 0x0F
        if kind == .removeAll { return Record(kind: kind, key: "", value: nil, expiry: nil, length: length) }
        let keyLength = try reader.readCount()
        guard keyLength > 0, keyLength <= maximumKeyLength else { throw BinaryReader.malformedRecord }
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
        guard let kindAndTag = try? reader.readByte(), kindAndTag >> 4 != Kind.removeAll.rawValue,
              let keyLength = try? reader.readCount(), keyLength > 0,
              let key = try? reader.readString(count: keyLength) else { return nil }
        return key
    }
}

extension BinaryReader {
    static let malformedRecord = StashError(.corruptFile, "malformed preferences record")
}
