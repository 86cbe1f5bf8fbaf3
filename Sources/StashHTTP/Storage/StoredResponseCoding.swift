import Foundation
import HTTPTypes
import StashCache
import StashCore

/// The binary form of the variants stored for one URL, as the disk side of an
/// ``HTTPCache`` keeps them: the magic `STH1`, the key, then each response with its status,
/// reason, fields, selecting fields, times and body. Integers are little-endian, counts and
/// lengths 32-bit (the format HTTPCache has always written, so entries from earlier
/// versions still decode). When a variant keeps its body in a file of the disk cache, the
/// magic is `STH2` and each body is followed by a byte saying whether it is in a file, and
/// if so the file's key and the body's length (64-bit).
///
/// Encoding and decoding go through StashCore's ``StashCore/BinaryWriter`` and
/// ``StashCore/BinaryReader``: every length is checked against the bytes left, and anything
/// that does not decode throws `StashError(.corruptFile)`, which the cache treats as a miss
/// (removing the entry). So does a record that decodes to values the encoder never writes
/// (`StoredResponseCoding+Checks.swift`): a time that is not finite or not in 1970 ..< 10000,
/// a response time more than a day before its request time, a field name that is not one or
/// a value holding NUL, CR or LF, a body file longer than `Int.max`.
struct StoredResponseCoding: CacheCodec {
    static let magic: UInt32 = 0x5354_4831 // "STH1"
    static let magicWithBodyFiles: UInt32 = 0x5354_4832 // "STH2"

    func encode(_ variants: [StoredResponse]) throws -> Data { Self.encode(key: "", variants: variants) }

    func decode(_ data: Data) throws -> [StoredResponse] { try Self.decode(data).variants }

    static func encode(key: String, variants: [StoredResponse]) -> Data {
        var writer = BinaryWriter(capacity: variants.reduce(64) { $0 + $1.cost })
        let withBodyFiles = variants.contains { $0.bodyFile != nil }
        writer.write(withBodyFiles ? magicWithBodyFiles : magic)
        writeString(key, to: &writer)
        writer.write(UInt32(variants.count))
        for variant in variants {
            writer.write(UInt16(clamping: variant.status))
            writeString(variant.reasonPhrase, to: &writer)
            writer.write(UInt32(variant.headerFields.count))
            for field in variant.headerFields {
                writeString(field.name.rawName, to: &writer)
                writeString(field.value, to: &writer)
            }
            writer.write(UInt32(variant.selectingFields.count))
            for (name, value) in variant.selectingFields.sorted(by: { $0.key < $1.key }) {
                writeString(name, to: &writer)
                writer.write(UInt8(value == nil ? 0 : 1))
                writeString(value ?? "", to: &writer)
            }
            writer.write(variant.requestTime.timeIntervalSince1970.bitPattern)
            writer.write(variant.responseTime.timeIntervalSince1970.bitPattern)
            writer.write(UInt32(variant.body.count))
            variant.body.withUnsafeBytes { writer.write($0) }
            if withBodyFiles {
                writer.write(UInt8(variant.bodyFile == nil ? 0 : 1))
                if let file = variant.bodyFile {
                    writeString(file.key, to: &writer)
                    writer.write(UInt64(file.length))
                }
            }
        }
        return writer.data
    }

    /// Whether `data` starts with a magic this version writes (a record that then does not
    /// decode is damaged, not from a newer version).
    static func isKnownFormat(_ data: Data) -> Bool {
        guard data.count >= 4 else { return false }
        let format = data.prefix(4).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return format == magic || format == magicWithBodyFiles
    }

    /// The key and variants in `data`.
    ///
    /// - throws: `StashError(.corruptFile)` when `data` is not one complete record.
    static func decode(_ data: Data) throws -> (key: String, variants: [StoredResponse]) {
        try BinaryReader.read(data) { try decode(&$0) }
    }

    /// The key and variants in the reader's bytes, which must hold exactly one record.
    static func decode(_ reader: inout BinaryReader) throws -> (key: String, variants: [StoredResponse]) {
        let format = try reader.read(UInt32.self)
        guard format == magic || format == magicWithBodyFiles else { throw StashError(.corruptFile, "not a stored HTTP response") }
        let key = try readString(&reader)
        let count = try readCount(&reader, minimumItemSize: 34)
        var variants: [StoredResponse] = []
        variants.reserveCapacity(count)
        for _ in 0..<count {
            let status = try reader.read(UInt16.self)
            guard (100...999).contains(status) else { throw StashError(.corruptFile, "status \(status) in a stored HTTP response") }
            let reason = try readString(&reader)
            let fieldCount = try readCount(&reader, minimumItemSize: 8)
            var fields = HTTPFields()
            fields.reserveCapacity(fieldCount)
            for _ in 0..<fieldCount {
                let name = try readString(&reader)
                let value = try readString(&reader)
                fields.append(try checkedField(name: name, value: value))
            }
            let selectingCount = try readCount(&reader, minimumItemSize: 9)
            var selecting: [String: String?] = [:]
            for _ in 0..<selectingCount {
                let name = try readString(&reader)
                let present = try reader.readByte()
                let value = try readString(&reader)
                selecting[name] = present == 1 ? value : String?.none
            }
            let requestBits = try reader.read(UInt64.self)
            let responseBits = try reader.read(UInt64.self)
            let times = try checkedTimes(requestBits: requestBits, responseBits: responseBits)
            let bodyCount = try readCount(&reader, minimumItemSize: 1)
            let body = Data(try reader.readBytes(count: bodyCount))
            var bodyFile: StoredResponse.BodyFile?
            if format == magicWithBodyFiles, try reader.readByte() == 1 {
                let key = try readString(&reader)
                let length = try checkedBodyFileLength(reader.read(UInt64.self))
                bodyFile = StoredResponse.BodyFile(key: key, length: length)
            }
            variants.append(StoredResponse(
                status: Int(status), reasonPhrase: reason, headerFields: fields, body: body, bodyFile: bodyFile,
                requestTime: times.request, responseTime: times.response,
                selectingFields: selecting
            ))
        }
        guard reader.isAtEnd else { throw StashError(.corruptFile, "\(reader.remaining) bytes after a stored HTTP response") }
        return (key, variants)
    }

    private static func writeString(_ string: String, to writer: inout BinaryWriter) {
        writer.write(UInt32(string.utf8.count))
        writer.write(string)
    }

    private static func readString(_ reader: inout BinaryReader) throws -> String {
        try reader.readString(count: readCount(&reader, minimumItemSize: 1))
    }

    /// A 32-bit count of items at least `minimumItemSize` bytes each, refused when the bytes
    /// left cannot hold that many (a hostile count never makes the decoder allocate).
    private static func readCount(_ reader: inout BinaryReader, minimumItemSize: Int) throws -> Int {
        let count = Int(try reader.read(UInt32.self))
        guard count <= reader.remaining / minimumItemSize else {
            throw StashError(.corruptFile, "a count of \(count) exceeds the \(reader.remaining) bytes left")
        }
        return count
    }
}
