import Foundation
import StashCore

/// The one-byte type tag of a stored value. Part of the file format: never renumber.
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

extension ByteBuffer {
    /// Appends the value's bytes without tag or length: at the top of a record both are
    /// known from the record header.
    func appendPayload(_ value: PreferenceValue) {
        switch value {
        case .bool(let value): append(UInt8(value ? 1 : 0))
        case .integer(let value): append(value)
        case .unsignedInteger(let value): append(value)
        case .double(let value): append(value.bitPattern)
        case .float(let value): append(value.bitPattern)
        case .string(let value): append(value)
        case .date(let value): append(value.timeIntervalSinceReferenceDate.bitPattern)
        case .data(let value), .json(let value): append(value)
        case .url(let value): append(value.absoluteString)
        case .uuid(let value):
            withUnsafeBytes(of: value.uuid) { append($0) }
        case .array(let values):
            append(UInt32(values.count))
            for element in values { appendNested(element) }
        case .dictionary(let values):
            append(UInt32(values.count))
            for (key, element) in values {
                append(UInt32(key.utf8.count))
                append(key)
                appendNested(element)
            }
        }
    }

    /// Appends tag, length and payload: how values sit inside arrays and dictionaries.
    private func appendNested(_ value: PreferenceValue) {
        append(value.tag.rawValue)
        let lengthOffset = count
        append(UInt32(0))
        appendPayload(value)
        patch(UInt32(count - lengthOffset - 4), at: lengthOffset)
    }
}

extension PreferenceValue {
    /// Decodes a payload written by `appendPayload`. Throws on any inconsistency, never traps.
    init(tag rawTag: UInt8, payload: UnsafeRawBufferPointer) throws {
        guard let tag = ValueTag(rawValue: rawTag) else { throw ByteReader.malformed }
        var reader = ByteReader(payload)
        switch tag {
        case .bool: self = .bool(try reader.read(UInt8.self) != 0)
        case .integer: self = .integer(try reader.read(Int64.self))
        case .unsignedInteger: self = .unsignedInteger(try reader.read(UInt64.self))
        case .double: self = .double(Double(bitPattern: try reader.read(UInt64.self)))
        case .float: self = .float(Float(bitPattern: try reader.read(UInt32.self)))
        case .string: self = .string(String(decoding: payload, as: UTF8.self))
        case .date: self = .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: try reader.read(UInt64.self))))
        case .data: self = .data(Data(payload))
        case .json: self = .json(Data(payload))
        case .url:
            guard let url = URL(string: String(decoding: payload, as: UTF8.self)) else { throw ByteReader.malformed }
            self = .url(url)
        case .uuid:
            let raw = try reader.read(count: 16)
            var uuid = UUID().uuid
            withUnsafeMutableBytes(of: &uuid) { $0.copyMemory(from: raw) }
            self = .uuid(UUID(uuid: uuid))
        case .array:
            let count = Int(try reader.read(UInt32.self))
            guard count <= reader.remaining / 5 else { throw ByteReader.malformed }
            var values: [PreferenceValue] = []
            values.reserveCapacity(count)
            for _ in 0..<count { values.append(try PreferenceValue.readNested(&reader)) }
            self = .array(values)
        case .dictionary:
            let count = Int(try reader.read(UInt32.self))
            guard count <= reader.remaining / 9 else { throw ByteReader.malformed }
            var values: [String: PreferenceValue] = [:]
            values.reserveCapacity(count)
            for _ in 0..<count {
                let keyLength = Int(try reader.read(UInt32.self))
                let key = String(decoding: try reader.read(count: keyLength), as: UTF8.self)
                values[key] = try PreferenceValue.readNested(&reader)
            }
            self = .dictionary(values)
        }
    }

    private static func readNested(_ reader: inout ByteReader) throws -> PreferenceValue {
        let tag = try reader.read(UInt8.self)
        let length = Int(try reader.read(UInt32.self))
        return try PreferenceValue(tag: tag, payload: try reader.read(count: length))
    }
}
