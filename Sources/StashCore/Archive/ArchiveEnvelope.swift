import Foundation

/// The on-disk shape of an ``ArchiveFile``: `{"version": Int, "checksum": String, "value": …}`.
///
/// **Encoded once.** A save hands the whole envelope to Foundation's encoder
/// (`PropertyListEncoder` for binary and XML, `JSONEncoder` for JSON) and writes its bytes; a
/// load of a file at the current version decodes them straight into `Value`. The untyped
/// ``PropertyList`` tree is built only when a migration needs it.
///
/// **Checksum.** `checksum` reads `sha256:<nonce>:<digest>`: 16 hex digits of a fresh random
/// nonce and the first 16 hex digits of the SHA-256 of the whole file as written with the
/// digest spelled as zeros. The nonce makes the checksum's text unique in the file, so a load
/// finds it among the bytes, zeroes the digest again and compares. Any changed byte, inside a
/// string or in the file's structure, gives `.corruptFile`. Files written before checksums
/// existed have no `checksum` field and still load.
enum ArchiveEnvelope {
    static let versionKey = "version"
    static let checksumKey = "checksum"
    static let valueKey = "value"

    /// The fields a new file holds; any other field is damage (a flipped byte in a key).
    private static let knownKeys: Set<String> = [versionKey, checksumKey, valueKey]

    /// What a save encodes.
    struct Writing<Value: Encodable>: Encodable {
        var version: Int
        var checksum: String
        var value: Value
    }

    /// What a load at the current version decodes: the fields, with unknown ones refused.
    struct Reading<Value: Decodable>: Decodable {
        var version: Int
        var checksum: String?
        var value: Value?

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: AnyKey.self)
            for key in container.allKeys where !ArchiveEnvelope.knownKeys.contains(key.stringValue) {
                throw StashError(.corruptFile, "not an archive: unexpected field '\(key.stringValue)'")
            }
            version = try container.decode(Int.self, forKey: AnyKey(ArchiveEnvelope.versionKey))
            checksum = try container.decodeIfPresent(String.self, forKey: AnyKey(ArchiveEnvelope.checksumKey))
            value = try container.decodeIfPresent(Value.self, forKey: AnyKey(ArchiveEnvelope.valueKey))
        }
    }

    /// The envelope as an untyped tree, for migrations and for files that do not decode
    /// directly.
    struct Tree {
        var version: Int
        var checksum: String?
        var value: PropertyList

        /// - throws: the decoding errors of ``PropertyList``, or `.corruptFile` when the
        ///   property list is not an archive envelope.
        init(decoding data: Data, format: PropertyListFormat) throws {
            let tree: PropertyList
            do {
                tree = try PropertyList(data: data, format: format)
            } catch let error as StashError where error.code == .unsupportedValue {
                // No save writes what the tree cannot hold (a UID, a set, null): damage.
                throw StashError(.corruptFile, "not an archive: \(error.reason)", key: error.key)
            }
            guard case .dictionary(let fields) = tree else {
                throw StashError(.corruptFile, "not an archive: not a dictionary")
            }
            for key in fields.keys where !ArchiveEnvelope.knownKeys.contains(key) {
                throw StashError(.corruptFile, "not an archive: unexpected field '\(key)'")
            }
            guard case .integer(let number)? = fields[versionKey], let version = Int(exactly: number), version >= 0 else {
                throw StashError(.corruptFile, "not an archive: no version number")
            }
            guard let value = fields[valueKey] else {
                throw StashError(.corruptFile, "not an archive: no value")
            }
            switch fields[checksumKey] {
            case nil: checksum = nil
            case .string(let text)?: checksum = text
            default: throw StashError(.corruptFile, "not an archive: the checksum is not a string")
            }
            self.version = version
            self.value = value
        }
    }

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    // MARK: - Encoding

    /// The bytes of a file holding `value` at `version`, checksum included.
    static func encode<Value: Encodable>(_ value: Value, version: Int, format: PropertyListFormat) throws -> Data {
        let nonce = hex(UInt64.random(in: 0...UInt64.max))
        let unsealed = checksumPrefix + nonce + ":" + zeroDigest
        var bytes: [UInt8]
        do {
            let envelope = Writing(version: version, checksum: unsealed, value: value)
            switch format {
            case .binary, .xml:
                let encoder = PropertyListEncoder()
                encoder.outputFormat = format == .binary ? .binary : .xml
                bytes = Array(try encoder.encode(envelope))
            case .json:
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
                bytes = Array(try encoder.encode(envelope))
            }
        } catch let error as EncodingError {
            throw StashError(.unsupportedValue, "cannot encode \(Value.self): \(CodableBridge.describe(error))")
        }
        guard let digestStart = uniqueDigestOffset(of: unsealed, in: bytes) else {
            throw StashError(.unsupportedValue, "the encoder did not keep the checksum as written")
        }
        let digest = Array(hexDigest(of: bytes).utf8)
        bytes.replaceSubrange(digestStart..<(digestStart + digest.count), with: digest)
        return Data(bytes)
    }

    // MARK: - Decoding

    /// Decodes a whole archive file: checks, migrates and decodes its value.
    ///
    /// Damaged bytes never reach Foundation's decoders, which trap on some malformed input
    /// (the fuzzer found `PropertyListDecoder` stopping the process on an XML plist whose
    /// `<integer>` holds a broken character). A binary or JSON file whose checksum verifies
    /// is taken as what a save wrote and decodes once, straight into `Value`; the checksum
    /// detects damage, it is not a signature, so a file crafted to carry a valid one does
    /// reach Foundation's binary-plist or JSON decoder (an XML file never does).
    /// Everything else (an XML file, an older file without a checksum, a migration) is read
    /// by Stash's own fuzzed reader into a tree, which reaches Foundation's decoder only as
    /// canonical bytes of Stash's own writer.
    static func decode<Value: Decodable>(
        _: Value.Type, from data: Data, version: Int, migrations: [Int: ArchiveFile<Value>.Migration]
    ) throws -> Value where Value: Encodable {
        let format = PropertyListFormat.detect(data)
        // Checksum-shaped text found once in the bytes may be inside the value of an older file
        // that has no checksum of its own: only a checksum that verifies takes the fast path;
        // the tree below is the check that reports damage.
        if format != .xml, let checksum = checksumText(in: data), (try? verify(data, checksum: checksum)) != nil {
            if let envelope: Reading<Value> = try? decodeDirectly(data, format: format),
               envelope.version == version, envelope.checksum == checksum, let value = envelope.value {
                return value
            }
        }
        var tree = try Tree(decoding: data, format: format)
        if let checksum = tree.checksum { try verify(data, checksum: checksum) }
        guard tree.version <= version else {
            throw StashError(.unsupportedVersion, "the file is version \(tree.version), newer than version \(version) that this build reads")
        }
        while tree.version < version {
            guard let step = migrations[tree.version] else {
                throw StashError(.unsupportedVersion, "no migration from version \(tree.version) to \(tree.version + 1)")
            }
            try step(&tree.value)
            tree.version += 1
        }
        return try CodableBridge(format).decode(Value.self, from: tree.value)
    }

    /// The checksum's text when it occurs exactly once among the bytes (found without
    /// decoding anything), else `nil`.
    static func checksumText(in data: Data) -> String? {
        let prefix = Array(checksumPrefix.utf8)
        let length = prefix.count + 16 + 1 + 16
        var found: String?
        data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            guard bytes.count >= length else { return }
            func isHex(_ byte: UInt8) -> Bool { (48...57).contains(byte) || (97...102).contains(byte) }
            var index = 0
            while index <= bytes.count - length {
                defer { index += 1 }
                guard bytes[index] == prefix[0] else { continue }
                var matches = true
                for offset in 1..<prefix.count where bytes[index + offset] != prefix[offset] { matches = false; break }
                guard matches else { continue }
                let digits = index + prefix.count
                guard (0..<16).allSatisfy({ isHex(bytes[digits + $0]) }), bytes[digits + 16] == 58,
                      (17..<33).allSatisfy({ isHex(bytes[digits + $0]) }) else { continue }
                if found != nil { found = nil; return }   // twice: let the tree say which
                found = String(decoding: UnsafeBufferPointer(rebasing: bytes[index..<(index + length)]), as: UTF8.self)
            }
        }
        return found
    }

    /// Decodes the envelope and its value in one pass, with the coder a file in `format`
    /// needs. Only for bytes whose checksum verified.
    static func decodeDirectly<Value: Decodable>(_ data: Data, format: PropertyListFormat) throws -> Reading<Value> {
        switch format {
        case .binary, .xml: return try PropertyListDecoder().decode(Reading<Value>.self, from: data)
        case .json: return try JSONDecoder().decode(Reading<Value>.self, from: data)
        }
    }

    // MARK: - Checking

    /// Checks the file's bytes against `checksum` (the text read from the file).
    ///
    /// - throws: `.corruptFile` when the checksum is malformed, not found once among the
    ///   bytes, or does not match them.
    static func verify(_ data: Data, checksum: String) throws {
        let parts = checksum.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "sha256", parts[1].utf8.count == 16, parts[2].utf8.count == 16 else {
            throw StashError(.corruptFile, "the checksum field is malformed")
        }
        var bytes = Array(data)
        guard let digestStart = uniqueDigestOffset(of: checksum, in: bytes) else {
            throw StashError(.corruptFile, "the checksum does not match the file")
        }
        bytes.replaceSubrange(digestStart..<(digestStart + 16), with: Array(zeroDigest.utf8))
        guard hexDigest(of: bytes) == String(parts[2]) else {
            throw StashError(.corruptFile, "the checksum does not match the file (changed or damaged bytes)")
        }
    }

    private static let checksumPrefix = "sha256:"
    private static let zeroDigest = String(repeating: "0", count: 16)

    /// Where the 16 digest digits of `checksum` start in `bytes`, when its text occurs there
    /// exactly once.
    private static func uniqueDigestOffset(of checksum: String, in bytes: [UInt8]) -> Int? {
        let needle = Array(checksum.utf8)
        guard needle.count == checksumPrefix.count + 16 + 1 + 16, bytes.count >= needle.count else { return nil }
        var found: Int?
        var start = 0
        let first = needle[0]
        while start <= bytes.count - needle.count {
            if bytes[start] == first, bytes[start..<(start + needle.count)].elementsEqual(needle) {
                if found != nil { return nil }
                found = start
            }
            start += 1
        }
        return found.map { $0 + needle.count - 16 }
    }

    private static func hexDigest(of bytes: [UInt8]) -> String {
        let digest = SHA256.digest(of: bytes)
        var value: UInt64 = 0
        for byte in digest.prefix(8) { value = value << 8 | UInt64(byte) }
        return hex(value.bigEndian)
    }

    /// 16 lowercase hex digits of `value`'s bytes in memory order.
    private static func hex(_ value: UInt64) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(16)
        withUnsafeBytes(of: value) { raw in
            for byte in raw {
                text.append(digits[Int(byte >> 4)])
                text.append(digits[Int(byte & 0xF)])
            }
        }
        return String(decoding: text, as: UTF8.self)
    }
}
