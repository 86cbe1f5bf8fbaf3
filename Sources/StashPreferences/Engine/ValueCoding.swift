import Foundation
import StashCore

/// The type tag of a stored value (4 bits in a record). Part of the file format: never
/// renumber.
enum ValueTag: UInt8 {
    case bool = 1, integer, unsignedInteger, double, float, string, date, data, url, uuid, array, dictionary, json
}

extension PreferenceValue {
    var tag: ValueTag {
        switch self {
        case .bool: .bool
        case .integer: .integer
        case .unsignedInteger: .unsignedInteger
        case .double: .double
        case .float: .float
        case .string: .string
        case .date: .date
        case .data: .data
        case .url: .url
        case .uuid: .uuid
        case .array: .array
        case .dictionary: .dictionary
        case .json: .json
        }
    }
}

/// Payloads (format versions 2 and 3): integers as LEB128 varints (signed ones zigzag-encoded, so
/// small negative numbers stay small), floating-point numbers and dates as their 8 or 4
/// little-endian bytes, text and data as they are (their length is the record's), arrays and
/// dictionaries as a varint count of nested values, each a tag byte, a varint length and its
/// payload (a dictionary's keys as a varint length and UTF-8 before each value).
extension BinaryWriter {
    /// Appends the value's bytes without tag or length: at the top of a record both are
    /// known from the record itself.
    mutating func writePayload(_ value: PreferenceValue) {
        switch value {
        case .bool(let value): write(UInt8(value ? 1 : 0))
        case .integer(let value): writeVarInt(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
        case .unsignedInteger(let value): writeVarInt(value)
        case .double(let value): write(value.bitPattern)
        case .float(let value): write(value.bitPattern)
        case .string(let value): write(value)
        case .date(let value): write(value.timeIntervalSinceReferenceDate.bitPattern)
        case .data(let value), .json(let value): write(contentsOf: value)
        case .url(let value): write(value.absoluteString)
        case .uuid(let value): Swift.withUnsafeBytes(of: value.uuid) { write($0) }
        case .array(let values):
            writeVarInt(UInt64(values.count))
            for element in values { writeNested(element) }
        case .dictionary(let values):
            writeVarInt(UInt64(values.count))
            for (key, element) in values.sorted(by: { $0.key < $1.key }) {
                writeCounted(key)
                writeNested(element)
            }
        }
    }

    /// Appends the value's payload as a format version 3 record holds it: self-delimiting,
    /// with a varint length in front of the payloads whose length is not fixed or implied.
    mutating func writeRecordPayload(_ value: PreferenceValue) {
        switch value {
        case .bool, .integer, .unsignedInteger, .double, .float, .date, .uuid: writePayload(value)
        case .string(let value): writeCounted(value)
        case .url(let value): writeCounted(value.absoluteString)
        case .data(let value), .json(let value): writeCounted(value)
        case .array, .dictionary:
            var nested = BinaryWriter()
            nested.writePayload(value)
            writeCounted(nested.bytes)
        }
    }

    /// Appends tag, length and payload: how values sit inside arrays and dictionaries.
    private mutating func writeNested(_ value: PreferenceValue) {
        write(value.tag.rawValue)
        var nested = BinaryWriter()
        nested.writePayload(value)
        writeCounted(nested.bytes)
    }
}

extension PreferenceValue {
    /// Decodes a payload (format versions 2 and 3, without a length in front). Throws on any inconsistency, never traps.
    init(tag rawTag: UInt8, payload: UnsafeRawBufferPointer) throws {
        guard let tag = ValueTag(rawValue: rawTag) else { throw BinaryReader.malformedRecord }
        var reader = BinaryReader(payload)
        switch tag {
        case .bool: self = .bool(try reader.readByte() != 0)
        case .integer: self = .integer(PreferenceValue.zigzagDecoded(try reader.readVarInt()))
        case .unsignedInteger: self = .unsignedInteger(try reader.readVarInt())
        case .double: self = .double(Double(bitPattern: try reader.read(UInt64.self)))
        case .float: self = .float(Float(bitPattern: try reader.read(UInt32.self)))
        case .string: self = .string(String(decoding: payload, as: UTF8.self))
        case .date: self = .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: try reader.read(UInt64.self))))
        case .data: self = .data(Data(payload))
        case .json: self = .json(Data(payload))
        case .url: self = .url(try PreferenceValue.url(payload))
        case .uuid: self = .uuid(try PreferenceValue.uuid(try reader.readBytes(count: 16)))
        case .array:
            let count = try reader.readCount()
            var values: [PreferenceValue] = []
            values.reserveCapacity(count)
            for _ in 0..<count { values.append(try PreferenceValue.readNested(&reader)) }
            self = .array(values)
        case .dictionary:
            let count = try reader.readCount()
            var values: [String: PreferenceValue] = [:]
            values.reserveCapacity(count)
            for _ in 0..<count {
                let key = String(decoding: try reader.readBytes(count: try reader.readCount()), as: UTF8.self)
                values[key] = try PreferenceValue.readNested(&reader)
            }
            self = .dictionary(values)
        }
    }

    /// The signed integer that a zigzag-encoded varint holds.
    @inline(__always)
    static func zigzagDecoded(_ raw: UInt64) -> Int64 {
        Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
    }

    private static func readNested(_ reader: inout BinaryReader) throws -> PreferenceValue {
        let tag = try reader.readByte()
        return try PreferenceValue(tag: tag, payload: try reader.readBytes(count: try reader.readCount()))
    }

    static func url(_ payload: UnsafeRawBufferPointer) throws -> URL {
        guard let url = URL(string: String(decoding: payload, as: UTF8.self)) else { throw BinaryReader.malformedRecord }
        return url
    }

    static func uuid(_ raw: UnsafeRawBufferPointer) throws -> UUID {
        var uuid = UUID().uuid
        withUnsafeMutableBytes(of: &uuid) { $0.copyMemory(from: raw) }
        return UUID(uuid: uuid)
    }
}
