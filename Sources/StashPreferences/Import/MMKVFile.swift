import Foundation
import StashCore

/// Reads an unencrypted MMKV file, from the format's public description: a 4-byte
/// little-endian count of the bytes in use, then a stream that starts with a varint (the
/// size of the items when the file was last rewritten, unused here) followed by items, each a
/// varint-prefixed UTF-8 key and a varint-prefixed value; a later item for the same key
/// replaces the earlier one, and an empty value removes the key. Beside it, `<file>.crc`
/// starts with the CRC-32 (zlib's) of the bytes in use.
///
/// MMKV stores no types: a value's bytes are what its encoder wrote (a varint for integers
/// and Booleans, 4 or 8 little-endian bytes for Float and Double, a varint length and the
/// bytes for strings and data). ``value(_:as:)`` reads them as the caller says, or guesses.
struct MMKVFile {
    /// The live items, in the order of their first appearance.
    var items: [(key: String, bytes: [UInt8])] = []

    /// Parses `data`, checking it against the digest at the start of `crc` when given.
    ///
    /// - throws: ``/StashCore/StashError/Code/corruptFile`` when the bytes are not an unencrypted MMKV
    ///   file or do not match the digest.
    init(data: Data, crc: Data?, path: String) throws {
        do {
            let order: [String]
            var latest: [String: [UInt8]] = [:]
            (order, latest) = try BinaryReader.read(data) { reader in
                let used = Int(try reader.read(UInt32.self))
                guard used <= reader.remaining else {
                    throw StashError(.corruptFile, "the file says \(used) bytes are in use but has \(reader.remaining)")
                }
                let content = try reader.readBytes(count: used)
                if let crc {
                    let expected = try BinaryReader.read(crc) { try $0.read(UInt32.self) }
                    let actual = content.baseAddress.map { CRC32.checksum($0, count: content.count) } ?? CRC32().value
                    guard expected == actual else {
                        throw StashError(.corruptFile, "the checksum in the .crc file does not match (an encrypted or damaged MMKV file?)")
                    }
                }
                var items = BinaryReader(content)
                var order: [String] = []
                var latest: [String: [UInt8]] = [:]
                if !items.isAtEnd { _ = try items.readVarInt() }
                while !items.isAtEnd {
                    let key = try items.readString(count: try items.readCount())
                    let value = try items.readArray(count: try items.readCount())
                    guard !key.isEmpty else { continue }
                    if value.isEmpty {
                        latest[key] = nil
                    } else {
                        if latest[key] == nil { order.append(key) }
                        latest[key] = value
                    }
                }
                return (order, latest)
            }
            items = order.compactMap { key in latest[key].map { (key, $0) } }
        } catch var error as StashError {
            error.path = path
            if error.code == .corruptFile, !error.reason.contains("MMKV") { error.reason = "not an unencrypted MMKV file: " + error.reason }
            throw error
        }
    }

    /// The value of an item's bytes as `type`, or as guessed when `type` is `nil`: 8 or 4
    /// bytes that read as a Double or Float of magnitude 1e-6...1e12 are one; a value that
    /// is exactly one varint is an integer; one that is a varint length and that many bytes
    /// is a string (valid UTF-8) or data; otherwise 8 bytes are a Double, 4 a Float,
    /// anything else data as it is.
    static func value(_ bytes: [UInt8], as type: Preferences.MMKVValueType?) throws -> PreferenceValue {
        try bytes.withUnsafeBytes { raw in
            func varint() -> UInt64? {
                var reader = BinaryReader(raw)
                guard let value = try? reader.readVarInt(), reader.isAtEnd else { return nil }
                return value
            }
            func counted() -> UnsafeRawBufferPointer? {
                var reader = BinaryReader(raw)
                guard let count = try? reader.readCount(), count == reader.remaining else { return nil }
                return try? reader.readBytes(count: count)
            }
            func fixed<T: FixedWidthInteger>(_: T.Type) -> T? {
                var reader = BinaryReader(raw)
                guard raw.count == MemoryLayout<T>.size else { return nil }
                return try? reader.read(T.self)
            }
            func mismatch() -> StashError {
                StashError(.typeMismatch, "an MMKV value of \(raw.count) bytes is not a \(type.map { "\($0)" } ?? "value")")
            }
            switch type {
            case .bool?:
                guard let value = varint() else { throw mismatch() }
                return .bool(value != 0)
            case .integer?:
                guard let value = varint() else { throw mismatch() }
                return .integer(Int64(bitPattern: value))
            case .unsignedInteger?:
                guard let value = varint() else { throw mismatch() }
                return value <= UInt64(Int64.max) ? .integer(Int64(value)) : .unsignedInteger(value)
            case .float?:
                guard let value = fixed(UInt32.self) else { throw mismatch() }
                return .float(Float(bitPattern: value))
            case .double?:
                guard let value = fixed(UInt64.self) else { throw mismatch() }
                return .double(Double(bitPattern: value))
            case .string?:
                guard let text = counted(), let string = String(validating: text, as: UTF8.self) else { throw mismatch() }
                return .string(string)
            case .data?:
                guard let data = counted() else { throw mismatch() }
                return .data(Data(data))
            case nil:
                // 8 (or 4) bytes can also read as one long varint (0.8 does): an ordinary
                // floating-point magnitude wins over an integer above 2^49 (2^21).
                if let bits = fixed(UInt64.self), isOrdinary(Double(bitPattern: bits)) { return .double(Double(bitPattern: bits)) }
                if let bits = fixed(UInt32.self), isOrdinary(Double(Float(bitPattern: bits))) { return .float(Float(bitPattern: bits)) }
                if let value = varint() { return .integer(Int64(bitPattern: value)) }
                if let text = counted() {
                    if let string = String(validating: text, as: UTF8.self) { return .string(string) }
                    return .data(Data(text))
                }
                if let value = fixed(UInt64.self) { return .double(Double(bitPattern: value)) }
                if let value = fixed(UInt32.self) { return .float(Float(bitPattern: value)) }
                return .data(Data(raw))
            }
        }
    }

    private static func isOrdinary(_ value: Double) -> Bool {
        value.isFinite && abs(value) >= 1e-6 && abs(value) <= 1e12
    }
}
