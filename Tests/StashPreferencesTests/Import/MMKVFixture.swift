import Foundation
import StashCore
@testable import StashPreferences

/// Writes MMKV files from the format's public description (no MMKV code): a 4-byte
/// little-endian count of bytes in use, then a varint (the items' size at the last full
/// write), then items appended one after another, each a varint-prefixed key and a
/// varint-prefixed value (empty: removed); beside it `<file>.crc`, whose first 4 bytes are
/// the CRC-32 of the bytes in use.
struct MMKVFixture {
    private var items = BinaryWriter()

    /// Values as MMKV's encoders write them.
    enum Value {
        case bool(Bool), int32(Int32), int64(Int64), uint64(UInt64), float(Float), double(Double), string(String), bytes([UInt8])

        var encoded: [UInt8] {
            var writer = BinaryWriter()
            switch self {
            case .bool(let value): writer.writeVarInt(value ? 1 : 0)
            case .int32(let value): writer.writeVarInt(UInt64(bitPattern: Int64(value)))  // sign-extended, as protobuf's int32
            case .int64(let value): writer.writeVarInt(UInt64(bitPattern: value))
            case .uint64(let value): writer.writeVarInt(value)
            case .float(let value): writer.write(value.bitPattern)
            case .double(let value): writer.write(value.bitPattern)
            case .string(let value): writer.writeCounted(value)
            case .bytes(let value): writer.writeCounted(value)
            }
            return writer.bytes
        }
    }

    mutating func set(_ value: Value, forKey key: String) {
        items.writeCounted(key)
        items.writeCounted(value.encoded)
    }

    mutating func remove(_ key: String) {
        items.writeCounted(key)
        items.writeVarInt(0)
    }

    /// The file's bytes (with `slack` zero bytes after the ones in use, as MMKV's mapped
    /// file has) and its `.crc` file's bytes.
    func files(slack: Int = 100) -> (file: Data, crc: Data) {
        var content = BinaryWriter()
        content.writeVarInt(UInt64(items.count))
        content.write(contentsOf: items.bytes)
        var file = BinaryWriter()
        file.write(UInt32(content.count))
        file.write(contentsOf: content.bytes)
        file.write(contentsOf: [UInt8](repeating: 0, count: slack))
        var crc = BinaryWriter()
        crc.write(content.withUnsafeBytes { CRC32.checksum($0.baseAddress!, count: $0.count) })
        crc.write(contentsOf: [UInt8](repeating: 0, count: 28))  // version, sequence, …: unused here
        return (file.data, crc.data)
    }

    func write(to url: URL) throws {
        let (file, crc) = files()
        try FileStore.write(file, to: url)
        try FileStore.write(crc, to: URL(fileURLWithPath: url.path + ".crc"))
    }
}
