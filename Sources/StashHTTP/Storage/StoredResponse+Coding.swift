import Foundation
import HTTPTypes
import StashCore

/// The binary form of the variants stored for one URL: a magic number, the key, then each
/// response with its fields, selecting fields, times and body, all length-prefixed.
///
/// Files are replaced whole by atomic renames, so a reader never sees a torn file; decoding
/// still checks every length, and anything that does not decode is treated as a miss.
enum StoredResponseCoding {
    private static let magic: UInt32 = 0x5354_4831 // "STH1"

    static func encode(key: String, variants: [StoredResponse]) -> Data {
        var writer = Writer()
        writer.integer(magic)
        writer.string(key)
        writer.integer(UInt32(variants.count))
        for variant in variants {
            writer.integer(UInt16(clamping: variant.status))
            writer.string(variant.reasonPhrase)
            writer.integer(UInt32(variant.headerFields.count))
            for field in variant.headerFields {
                writer.string(field.name.rawName)
                writer.string(field.value)
            }
            writer.integer(UInt32(variant.selectingFields.count))
            for (name, value) in variant.selectingFields.sorted(by: { $0.key < $1.key }) {
                writer.string(name)
                writer.integer(UInt8(value == nil ? 0 : 1))
                writer.string(value ?? "")
            }
            writer.integer(variant.requestTime.timeIntervalSince1970.bitPattern)
            writer.integer(variant.responseTime.timeIntervalSince1970.bitPattern)
            writer.bytes(variant.body)
        }
        return writer.data
    }

    /// The key and variants in `data`, or `nil` when it is not a complete record.
    static func decode(_ data: Data) -> (key: String, variants: [StoredResponse])? {
        var reader = Reader(data: data)
        guard reader.integer(UInt32.self) == magic, let key = reader.string(),
              let count = reader.integer(UInt32.self) else { return nil }
        var variants: [StoredResponse] = []
        for _ in 0..<count {
            guard let status = reader.integer(UInt16.self), let reason = reader.string(),
                  let fieldCount = reader.integer(UInt32.self) else { return nil }
            var fields = HTTPFields()
            for _ in 0..<fieldCount {
                guard let name = reader.string(), let value = reader.string() else { return nil }
                if let fieldName = HTTPField.Name(name) { fields.append(HTTPField(name: fieldName, value: value)) }
            }
            guard let selectingCount = reader.integer(UInt32.self) else { return nil }
            var selecting: [String: String?] = [:]
            for _ in 0..<selectingCount {
                guard let name = reader.string(), let present = reader.integer(UInt8.self), let value = reader.string() else { return nil }
                selecting[name] = present == 1 ? value : String?.none
            }
            guard let requestBits = reader.integer(UInt64.self), let responseBits = reader.integer(UInt64.self),
                  let body = reader.bytes() else { return nil }
            variants.append(StoredResponse(
                status: Int(status), reasonPhrase: reason, headerFields: fields, body: body,
                requestTime: Date(timeIntervalSince1970: Double(bitPattern: requestBits)),
                responseTime: Date(timeIntervalSince1970: Double(bitPattern: responseBits)),
                selectingFields: selecting
            ))
        }
        guard reader.isAtEnd else { return nil }
        return (key, variants)
    }

    private struct Writer {
        var data = Data()
        mutating func integer<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
        }
        mutating func bytes(_ bytes: Data) {
            integer(UInt32(bytes.count))
            data.append(bytes)
        }
        mutating func string(_ text: String) { bytes(Data(text.utf8)) }
    }

    private struct Reader {
        let data: Data
        var offset: Int

        init(data: Data) {
            self.data = data
            offset = data.startIndex
        }

        var isAtEnd: Bool { offset == data.endIndex }

        mutating func integer<T: FixedWidthInteger>(_: T.Type) -> T? {
            let size = MemoryLayout<T>.size
            guard data.endIndex - offset >= size else { return nil }
            var value = T.zero
            withUnsafeMutableBytes(of: &value) { data.copyBytes(to: $0, from: offset..<offset + size) }
            offset += size
            return T(littleEndian: value)
        }

        mutating func bytes() -> Data? {
            guard let count = integer(UInt32.self), data.endIndex - offset >= Int(count) else { return nil }
            defer { offset += Int(count) }
            return data.subdata(in: offset..<offset + Int(count))
        }

        mutating func string() -> String? { bytes().map { String(decoding: $0, as: UTF8.self) } }
    }
}
