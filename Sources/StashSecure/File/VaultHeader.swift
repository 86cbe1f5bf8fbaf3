import Foundation
import StashCore

/// The clear part of a vault file: what is needed to derive its keys, and its sizes.
///
/// ```text
/// offset size  field
///      0    8  magic "STASHVLT"
///      8    1  format version (1)
///      9    1  key kind: 0 = raw key (key file, environment), 1 = scrypt passphrase
///     10    1  scrypt log2(N)   (0 for a raw key)
///     11    1  reserved (0)
///     12    4  scrypt r, big-endian (0 for a raw key)
///     16    4  scrypt p, big-endian (0 for a raw key)
///     20   16  salt (scrypt salt and HKDF salt), fresh on creation and rotation
///     36    4  record count, big-endian
///     40    8  length of the records section, big-endian
/// ```
struct VaultHeader: Equatable, Sendable {
    enum Kind: UInt8, Sendable {
        case key = 0
        case passphrase = 1
    }

    static let magic = Data("STASHVLT".utf8)
    static let currentVersion: UInt8 = 1
    static let size = 48
    static let saltSize = 16

    var version: UInt8 = VaultHeader.currentVersion
    var kind: Kind
    /// Zero for a raw key.
    var cost: ScryptCost
    var salt: Data
    var recordCount: UInt32 = 0
    var bodyLength: UInt64 = 0

    /// A new header for `key`, with a fresh random salt.
    init(for key: VaultKey) {
        if case .passphrase(_, let cost) = key {
            kind = .passphrase
            self.cost = cost
        } else {
            kind = .key
            cost = ScryptCost(log2N: 0, r: 0, p: 0)
        }
        salt = Data((0..<VaultHeader.saltSize).map { _ in UInt8.random(in: 0...255) })
    }

    init(kind: Kind, cost: ScryptCost, salt: Data, version: UInt8, recordCount: UInt32, bodyLength: UInt64) {
        self.kind = kind
        self.cost = cost
        self.salt = salt
        self.version = version
        self.recordCount = recordCount
        self.bodyLength = bodyLength
    }

    var bytes: Data {
        var out = BinaryWriter(capacity: VaultHeader.size)
        out.write(contentsOf: VaultHeader.magic)
        out.write(version)
        out.write(kind.rawValue)
        out.write(cost.log2N)
        out.write(UInt8(0))
        out.write(cost.r, .bigEndian)
        out.write(cost.p, .bigEndian)
        out.write(contentsOf: salt)
        out.write(recordCount, .bigEndian)
        out.write(bodyLength, .bigEndian)
        return out.data
    }

    /// Reads the fields of a header that starts the bytes (the magic is checked by the
    /// caller); `nil` when the kind byte is unknown.
    ///
    /// - throws: `.corruptFile` when the bytes end inside the header.
    static func parse(_ reader: inout BinaryReader) throws -> VaultHeader? {
        try reader.skip(magic.count)
        let version = try reader.readByte()
        let kindByte = try reader.readByte()
        let log2N = try reader.readByte()
        _ = try reader.readByte()
        let r = try reader.read(UInt32.self, .bigEndian)
        let p = try reader.read(UInt32.self, .bigEndian)
        let salt = Data(try reader.readBytes(count: saltSize))
        let count = try reader.read(UInt32.self, .bigEndian)
        let length = try reader.read(UInt64.self, .bigEndian)
        guard let kind = Kind(rawValue: kindByte) else { return nil }
        return VaultHeader(
            kind: kind, cost: ScryptCost(log2N: log2N, r: r, p: p), salt: salt,
            version: version, recordCount: count, bodyLength: length
        )
    }
}
