import Foundation
import StashCore

/// Reading logs written by format version 1 (before compact records), so that a suite
/// written by an earlier Stash still opens. The first write migrates the file: it is
/// rewritten in the current format (see ``PreferencesEngine/compactLocked(reserving:reencoding:)``).
///
/// Version 1 record (little-endian): total length (4), CRC-32 of bytes 0..<4 and 8..<length
/// (4), kind (1), tag (1), key length (2), expiry as a Double for `setExpiring` (8), key,
/// payload. Payloads: integers as 8 bytes, nested values as tag (1), length (4), payload;
/// counts and dictionary key lengths as 4 bytes.
enum FormatVersion1 {
    static let version: UInt32 = 1
    static let recordHeaderSize = 12

    /// Reads and verifies the version 1 record at `offset`, ending at or before `limit`.
    static func read(_ base: UnsafeRawPointer, at offset: Int, limit: Int) -> Record? {
        guard limit - offset >= recordHeaderSize else { return nil }
        let start = base + offset
        let length = Int(UInt32(littleEndian: start.loadUnaligned(as: UInt32.self)))
        guard length >= recordHeaderSize, length <= limit - offset else { return nil }
        let stored = UInt32(littleEndian: start.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
        var crc = CRC32()
        crc.update(UnsafeRawBufferPointer(start: start, count: 4))
        crc.update(UnsafeRawBufferPointer(start: start + 8, count: length - 8))
        guard crc.value == stored else { return nil }
        var reader = BinaryReader(UnsafeRawBufferPointer(start: start, count: length), offset: 8)
        do {
            guard let kind = Record.Kind(rawValue: try reader.readByte()), kind != .groupEnd else { return nil }
            let tag = try reader.readByte()
            let keyLength = Int(try reader.read(UInt16.self))
            guard keyLength > 0 || kind == .removeAll else { return nil }
            var expiry: Double?
            if kind == .setExpiring { expiry = Double(bitPattern: try reader.read(UInt64.self)) }
            let key = String(decoding: try reader.readBytes(count: keyLength), as: UTF8.self)
            var value: PreferenceValue?
            if kind == .set || kind == .setExpiring {
                value = try decode(tag: tag, payload: try reader.readBytes(count: reader.remaining))
            }
            return Record(kind: kind, key: key, value: value, expiry: expiry, length: length)
        } catch {
            return nil
        }
    }

    /// Decodes a version 1 payload.
    static func decode(tag rawTag: UInt8, payload: UnsafeRawBufferPointer) throws -> PreferenceValue {
        guard let tag = ValueTag(rawValue: rawTag) else { throw BinaryReader.malformedRecord }
        var reader = BinaryReader(payload)
        switch tag {
        case .integer: return .integer(try reader.read(Int64.self))
        case .unsignedInteger: return .unsignedInteger(try reader.read(UInt64.self))
        case .array:
            let count = Int(try reader.read(UInt32.self))
            guard count <= reader.remaining / 5 else { throw BinaryReader.malformedRecord }
            var values: [PreferenceValue] = []
            values.reserveCapacity(count)
            for _ in 0..<count { values.append(try readNested(&reader)) }
            return .array(values)
        case .dictionary:
            let count = Int(try reader.read(UInt32.self))
            guard count <= reader.remaining / 9 else { throw BinaryReader.malformedRecord }
            var values: [String: PreferenceValue] = [:]
            values.reserveCapacity(count)
            for _ in 0..<count {
                let keyLength = Int(try reader.read(UInt32.self))
                let key = String(decoding: try reader.readBytes(count: keyLength), as: UTF8.self)
                values[key] = try readNested(&reader)
            }
            return .dictionary(values)
        default:
            // Every other payload is the same in both versions.
            return try PreferenceValue(tag: rawTag, payload: payload)
        }
    }

    private static func readNested(_ reader: inout BinaryReader) throws -> PreferenceValue {
        let tag = try reader.readByte()
        let length = Int(try reader.read(UInt32.self))
        return try decode(tag: tag, payload: try reader.readBytes(count: length))
    }
}
