import Foundation
import StashCore

/// One entry of the log: a set, a set with an expiry date, a removal, or a removal of all.
///
/// On disk (format version 3; integers little-endian, lengths LEB128 varints):
///
/// | field | size | |
/// |---|---|---|
/// | kind and tag | 1 | kind in the high 4 bits, the value's tag in the low 4 (0: none) |
/// | key length | 1-3 | varint, absent for `removeAll` |
/// | key | | UTF-8 (NFC), absent for `removeAll` |
/// | expiry | 8 | seconds since 1970 as a Double, only for `setExpiring` |
/// | payload | | the value, only for the sets (below) |
///
/// A payload is self-delimiting: booleans 1 byte, integers a varint (signed ones
/// zigzag-encoded), doubles and dates 8 bytes, floats 4, UUIDs 16; text, data, URLs, JSON,
/// arrays and dictionaries a varint length and their bytes (see `ValueCoding.swift`).
///
/// Records carry no checksum of their own: they come in **groups**, each closed by a
/// *group end* record (kind 5, tag 0: the group's length in bytes as a varint, then the
/// CRC-32 of those bytes). A writer closes its group once it holds ``groupRecords``
/// records or ``groupBytes`` bytes; the records after the last group end (the open group)
/// are covered by the CRC in the header's current commit (see ``LogFile``), which every
/// append updates. So one checksum serves up to 16 records, and damage costs the group it
/// hits: a reader that meets a group that fails its checksum looks for the next intact
/// group (see ``LogScanner``). Format versions 1 and 2 (one checksum per record) are read by
/// ``FormatVersion1`` and ``FormatVersion2``.
struct Record {
    enum Kind: UInt8 {
        case set = 1, setExpiring, remove, removeAll, groupEnd
    }

    static let maximumKeyLength = Int(UInt16.max)
    static let maximumLength = 256 << 20
    /// A group is closed once it holds this many records...
    static let groupRecords = 16
    /// ...or this many bytes.
    static let groupBytes = 1024
    /// The longest group end: kind, a 10-byte varint, the CRC.
    static let maximumGroupEndLength = 15

    var kind: Kind
    var key: String
    var value: PreferenceValue?
    /// Seconds since 1970 after which the value is gone.
    var expiry: Double?
    /// The record's size in the file.
    var length: Int
    /// The ``KeyHash`` of the key, when decoding computed it from the file's bytes (an
    /// ASCII key, whose bytes are its `String`'s): an open does not hash the key again.
    var keyHash: UInt64?
}

/// A record encoded in a reusable writer: ``withBytes(_:)`` lends it.
struct RecordEncoder {
    private var writer = BinaryWriter(capacity: 256)

    /// How many bytes the last encoded record has.
    var count: Int { writer.count }

    /// Lends the last encoded record.
    func withBytes<T>(_ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        try writer.withUnsafeBytes(body)
    }

    /// Encodes one complete record, replacing the previous one.
    ///
    /// - throws: ``/StashCore/StashError/Code/invalidKey`` for an empty or over-long key,
    ///   ``/StashCore/StashError/Code/unsupportedValue`` for a value too large for one record.
    mutating func encode(_ kind: Record.Kind, key: String, value: PreferenceValue?, expiry: Double?) throws {
        writer.removeAll()
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
        if let value { writer.writeRecordPayload(value) }
        guard writer.count <= Record.maximumLength else {
            throw StashError(.unsupportedValue, "a value may not be larger than \(Record.maximumLength >> 20) MB", key: key)
        }
    }

    /// Encodes the group end of the `length` bytes of records whose CRC-32 is `checksum`.
    mutating func encodeGroupEnd(length: Int, checksum: UInt32) {
        writer.removeAll()
        writer.write(Record.Kind.groupEnd.rawValue << 4)
        writer.writeVarInt(UInt64(length))
        writer.write(checksum)
    }
}

/// Where the parts of a record lie in the file: found from lengths alone, before any
/// checksum is known to hold.
///
/// Framing runs at every offset a damaged log is searched at, so it reads the mapping
/// directly and fails with `nil` (never a thrown error, which would cost a formatted
/// message at each of those offsets); decoding a verified record goes through
/// `BinaryReader`.
struct RecordFrame {
    var kind: Record.Kind
    var tag: UInt8
    var key: Range<Int>
    /// Where the expiry's 8 bytes start (only `setExpiring`).
    var expiry: Int
    /// The value's bytes, without their length (only the sets).
    var payload: Range<Int>
    /// Just past the record.
    var end: Int
    /// A group end's group length and checksum.
    var groupLength = 0
    var groupChecksum: UInt32 = 0
    /// The ``KeyHash`` of the key's bytes, once ``hashKey(_:)`` computed it.
    var keyHash: (hash: UInt64, isPlainASCII: Bool)?

    /// Frames the record at `offset`, which must end at or before `limit`; `nil` when the
    /// bytes cannot be one.
    @inline(__always)
    init?(_ base: UnsafeRawPointer, at offset: Int, limit: Int) {
        guard offset < limit else { return nil }
        let first = base.load(fromByteOffset: offset, as: UInt8.self)
        guard let kind = Record.Kind(rawValue: first >> 4) else { return nil }
        let tag = first & 0x0F
        var cursor = offset + 1
        self.kind = kind
        self.tag = tag
        key = cursor..<cursor
        expiry = 0
        payload = cursor..<cursor
        switch kind {
        case .groupEnd:
            guard tag == 0, let length = RecordFrame.varint(base, &cursor, limit), length <= UInt64(offset),
                  limit - cursor >= 4 else { return nil }
            groupLength = Int(length)
            groupChecksum = UInt32(littleEndian: base.loadUnaligned(fromByteOffset: cursor, as: UInt32.self))
            end = cursor + 4
            return
        case .removeAll:
            guard tag == 0 else { return nil }
            end = cursor
            return
        case .remove:
            guard tag == 0 else { return nil }
        case .set, .setExpiring:
            guard tag != 0 else { return nil }
        }
        guard let keyLength = RecordFrame.varint(base, &cursor, limit), keyLength > 0,
              keyLength <= UInt64(Record.maximumKeyLength), keyLength <= UInt64(limit - cursor) else { return nil }
        key = cursor..<(cursor + Int(keyLength))
        cursor += Int(keyLength)
        if kind == .remove {
            end = cursor
            return
        }
        if kind == .setExpiring {
            guard limit - cursor >= 8 else { return nil }
            expiry = cursor
            cursor += 8
        }
        guard let valueTag = ValueTag(rawValue: tag) else { return nil }
        let payloadLength: Int
        switch valueTag {
        case .bool: payloadLength = 1
        case .float: payloadLength = 4
        case .double, .date: payloadLength = 8
        case .uuid: payloadLength = 16
        case .integer, .unsignedInteger:
            var scan = cursor
            guard RecordFrame.varint(base, &scan, limit) != nil else { return nil }
            payloadLength = scan - cursor
        case .string, .data, .url, .json, .array, .dictionary:
            guard let length = RecordFrame.varint(base, &cursor, limit), length <= UInt64(Record.maximumLength) else { return nil }
            payloadLength = Int(length)
        }
        guard payloadLength <= limit - cursor else { return nil }
        payload = cursor..<(cursor + payloadLength)
        end = cursor + payloadLength
    }

    /// Reads a LEB128 varint of at most 10 bytes at `cursor`, before `limit`.
    @inline(__always)
    static func varint(_ base: UnsafeRawPointer, _ cursor: inout Int, _ limit: Int) -> UInt64? {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while cursor < limit {
            let byte = base.load(fromByteOffset: cursor, as: UInt8.self)
            cursor += 1
            if shift == 63, byte > 1 { return nil }
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
            if shift > 63 { return nil }
        }
        return nil
    }

    /// Computes ``keyHash`` (which ``decode(_:at:)`` then uses).
    @inline(__always)
    mutating func hashKey(_ base: UnsafeRawPointer) {
        keyHash = KeyHash.hash(UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self) + key.lowerBound, count: key.count))
    }

    /// The record these bytes hold, once their group's checksum held.
    ///
    /// Every field is worked out first and the record built once at the end: a record
    /// assigned field by field was copied and destroyed on the way out (a sixth of an open).
    func decode(_ base: UnsafeRawPointer, at offset: Int) throws -> Record {
        let keyBytes = UnsafeRawBufferPointer(start: base + self.key.lowerBound, count: self.key.count)
        // Hashed in place: plain ASCII bytes are the `String`'s own (anything else may have
        // been repaired by the decoding, and is hashed from the `String` when indexed).
        let (hash, isPlainASCII) = keyHash ?? KeyHash.hash(keyBytes.assumingMemoryBound(to: UInt8.self))
        let expiry = kind == .setExpiring
            ? Double(bitPattern: UInt64(littleEndian: base.loadUnaligned(fromByteOffset: self.expiry, as: UInt64.self)))
            : nil
        let value: PreferenceValue?
        if kind != .set && kind != .setExpiring {
            value = nil
        } else if tag == ValueTag.integer.rawValue {
            // The most common value, read straight from the varint that framing delimited.
            var cursor = payload.lowerBound
            guard let raw = RecordFrame.varint(base, &cursor, payload.upperBound) else { throw BinaryReader.malformedRecord }
            value = .integer(PreferenceValue.zigzagDecoded(raw))
        } else {
            value = try PreferenceValue(tag: tag, payload: UnsafeRawBufferPointer(start: base + payload.lowerBound, count: payload.count))
        }
        return Record(
            kind: kind, key: String(decoding: keyBytes, as: UTF8.self), value: value, expiry: expiry, length: end - offset,
            keyHash: isPlainASCII ? hash : nil
        )
    }

    /// The record's key when it has one that is valid UTF-8: what a recovery report names.
    func readableKey(_ base: UnsafeRawPointer) -> String? {
        guard !key.isEmpty else { return nil }
        return String(validating: UnsafeRawBufferPointer(start: base + key.lowerBound, count: key.count), as: UTF8.self)
    }
}

extension BinaryReader {
    static let malformedRecord = StashError(.corruptFile, "malformed preferences record")
}
