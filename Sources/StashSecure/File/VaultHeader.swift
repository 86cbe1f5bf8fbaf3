import Foundation

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
        var out = VaultHeader.magic
        out.append(version)
        out.append(kind.rawValue)
        out.append(cost.log2N)
        out.append(0)
        out.appendBigEndian(cost.r)
        out.appendBigEndian(cost.p)
        out.append(salt)
        out.appendBigEndian(recordCount)
        out.appendBigEndian(bodyLength)
        return out
    }

    /// Reads the fields; `nil` when the kind byte is unknown.
    static func parse(_ bytes: ByteReader) -> VaultHeader? {
        var reader = bytes
        _ = reader.take(8)
        guard let version = reader.byte(), let kindByte = reader.byte(), let kind = Kind(rawValue: kindByte),
              let log2N = reader.byte(), reader.byte() != nil,
              let r = reader.uint32(), let p = reader.uint32(),
              let salt = reader.take(saltSize),
              let count = reader.uint32(), let length = reader.uint64()
        else { return nil }
        return VaultHeader(
            kind: kind, cost: ScryptCost(log2N: log2N, r: r, p: p), salt: salt,
            version: version, recordCount: count, bodyLength: length
        )
    }
}

/// Reads big-endian fields from bytes, returning `nil` instead of reading past the end.
struct ByteReader {
    private let data: Data
    private(set) var offset: Int

    init(_ data: Data, offset: Int = 0) {
        self.data = data
        self.offset = offset
    }

    var remaining: Int { data.count - offset }

    mutating func take(_ count: Int) -> Data? {
        guard count >= 0, remaining >= count else { return nil }
        let start = data.startIndex + offset
        offset += count
        return Data(data[start..<start + count])
    }

    mutating func byte() -> UInt8? { take(1)?.first }

    mutating func uint32() -> UInt32? {
        take(4).map { $0.reduce(0) { $0 << 8 | UInt32($1) } }
    }

    mutating func uint64() -> UInt64? {
        take(8).map { $0.reduce(0) { $0 << 8 | UInt64($1) } }
    }
}

extension Data {
    mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }
}
