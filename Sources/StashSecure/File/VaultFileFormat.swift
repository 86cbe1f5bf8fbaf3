import Crypto
import Foundation
import StashCore

/// Encodes and decodes a whole vault file.
///
/// ```text
/// header      48 bytes (see VaultHeader), in clear
/// key check   44 bytes: ChaChaPoly(check key, "stash vault key\n", aad: header)
/// digest      32 bytes: SHA-256 of header + key check
/// records     each: lookup id (32) · sealed length (4, big-endian) · ChaChaPoly box
///             box = nonce (12) · ciphertext of [name length (4) · name · value] · tag (16)
///             aad = "stash.vault.record" · scope · 0 · lookup id
/// file MAC    32 bytes: HMAC-SHA256(file key, everything before)
/// ```
///
/// The checks run in an order that makes every failure distinct: too short is
/// `truncatedFile`, a broken header digest is `tampered`, a key check that does not open is
/// a wrong key or passphrase (the digest proved the header intact), a bad file MAC or record
/// is `tampered`.
enum VaultFileFormat {
    static let keyCheckPlaintext = Data("stash vault key\n".utf8)
    static let keyCheckSize = 12 + 16 + 16
    static let digestSize = 32
    static let preambleSize = VaultHeader.size + keyCheckSize + digestSize
    static let macSize = 32
    static let lookupIDSize = 32

    /// The bytes of a vault holding `entries`.
    static func encode(_ entries: [String: Data], header: VaultHeader, keys: VaultKeys, scope: String) throws -> Data {
        var records: [(id: Data, sealed: Data)] = []
        for (name, value) in entries {
            let id = keys.lookupID(scope: scope, name: name)
            var payload = BinaryWriter(capacity: 4 + name.utf8.count + value.count)
            payload.write(UInt32(name.utf8.count), .bigEndian)
            payload.write(name)
            payload.write(contentsOf: value)
            let box = try ChaChaPoly.seal(payload.bytes, using: keys.records, authenticating: recordAAD(scope: scope, id: id))
            records.append((id, box.combined))
        }
        // Sorted by lookup id: the order reveals nothing about names or insertion order.
        records.sort { $0.id.lexicographicallyPrecedes($1.id) }
        var body = BinaryWriter()
        for record in records {
            body.write(contentsOf: record.id)
            body.write(UInt32(record.sealed.count), .bigEndian)
            body.write(contentsOf: record.sealed)
        }
        var header = header
        header.recordCount = UInt32(records.count)
        header.bodyLength = UInt64(body.count)
        let fields = header.bytes
        var file = fields
        file.append(try ChaChaPoly.seal(keyCheckPlaintext, using: keys.check, authenticating: fields).combined)
        file.append(Data(Crypto.SHA256.hash(data: file)))
        file.append(contentsOf: body.bytes)
        file.append(Data(HMAC<Crypto.SHA256>.authenticationCode(for: file, using: keys.file)))
        return file
    }

    /// Checks what needs no key (length, magic, digest, version) and returns the header.
    static func readHeader(_ data: Data, path: String) throws -> VaultHeader {
        let data = Data(data)
        let magic = VaultHeader.magic
        guard data.count >= magic.count ? data.prefix(magic.count) == magic : magic.starts(with: data) else {
            throw StashError(.corruptFile, "not a Stash vault file", path: path)
        }
        guard data.count >= preambleSize else {
            throw StashError(.truncatedFile, "the vault file ends inside its header (\(data.count) bytes)", path: path)
        }
        let digested = data.prefix(VaultHeader.size + keyCheckSize)
        guard Data(Crypto.SHA256.hash(data: digested)) == data[digested.count..<preambleSize] else {
            throw StashError(.tampered, "the vault header does not match its digest", path: path)
        }
        guard let header = try BinaryReader.read(data, { try VaultHeader.parse(&$0) }) else {
            throw StashError(.corruptFile, "unknown key kind in the vault header", path: path)
        }
        guard header.version <= VaultHeader.currentVersion else {
            throw StashError(.unsupportedVersion, "vault format \(header.version) is newer than this build understands (\(VaultHeader.currentVersion))", path: path)
        }
        guard header.version >= 1 else {
            throw StashError(.corruptFile, "vault format 0 does not exist", path: path)
        }
        let fixed = UInt64(preambleSize + macSize)
        let (expected, overflow) = header.bodyLength.addingReportingOverflow(fixed)
        guard !overflow, expected <= UInt64(Int.max) else {
            throw StashError(.corruptFile, "impossible records length \(header.bodyLength)", path: path)
        }
        if data.count < Int(expected) {
            throw StashError(.truncatedFile, "the vault file has \(data.count) of its \(expected) bytes", path: path)
        }
        if data.count > Int(expected) {
            throw StashError(.tampered, "the vault file has \(data.count - Int(expected)) bytes more than its header says", path: path)
        }
        if header.kind == .passphrase && !header.cost.isReasonable {
            throw StashError(.corruptFile, "unreasonable scrypt parameters in the vault header", path: path)
        }
        return header
    }

    /// Verifies the key and the whole file, then decrypts every entry.
    ///
    /// - parameters:
    ///   - wrongKey: The code to throw when the key check does not open
    ///     (``StashCore/StashError/Code/wrongPassphrase`` or ``StashCore/StashError/Code/wrongKey``).
    static func decode(_ data: Data, header: VaultHeader, keys: VaultKeys, scope: String, path: String, wrongKey: StashError.Code) throws -> [String: Data] {
        let data = Data(data)
        let fields = data.prefix(VaultHeader.size)
        let check = data[VaultHeader.size..<VaultHeader.size + keyCheckSize]
        let opened = try? ChaChaPoly.open(ChaChaPoly.SealedBox(combined: check), using: keys.check, authenticating: fields)
        guard opened == keyCheckPlaintext else {
            let what = wrongKey == .wrongPassphrase ? "passphrase" : "key"
            throw StashError(wrongKey, "this \(what) does not open the vault", path: path)
        }
        let macStart = data.count - macSize
        guard HMAC<Crypto.SHA256>.isValidAuthenticationCode(
            Data(data[macStart...]), authenticating: Data(data[..<macStart]), using: keys.file
        ) else {
            throw StashError(.tampered, "the vault file failed authentication", path: path)
        }
        return try BinaryReader.read(data, from: preambleSize) { reader in
            var entries: [String: Data] = [:]
            for _ in 0..<header.recordCount {
                guard let id = try? Data(reader.readBytes(count: lookupIDSize)),
                      let length = try? reader.read(UInt32.self, .bigEndian),
                      let sealed = try? Data(reader.readBytes(count: Int(length))),
                      let box = try? ChaChaPoly.SealedBox(combined: sealed),
                      let payload = try? ChaChaPoly.open(box, using: keys.records, authenticating: recordAAD(scope: scope, id: id))
                else {
                    throw StashError(.tampered, "a record failed authentication", path: path)
                }
                guard let (name, value) = try? BinaryReader.read(payload, { fields -> (String, Data) in
                    let name = try fields.readString(count: Int(fields.read(UInt32.self, .bigEndian)))
                    return (name, Data(try fields.readBytes(count: fields.remaining)))
                }), keys.lookupID(scope: scope, name: name) == id else {
                    throw StashError(.tampered, "a record does not belong to its entry", path: path)
                }
                // Names are kept in their stored form (NFC); a vault written before the key
                // rule may hold another form, which is folded here and rewritten on the
                // next change.
                let stored = (try? StoredKey.normalized(name)) ?? name
                guard entries[stored] == nil else {
                    throw StashError(.tampered, "two records hold the entry '\(StoredKey.printable(stored))'", path: path)
                }
                entries[stored] = value
            }
            guard reader.offset == macStart else {
                throw StashError(.tampered, "the records section does not match its length", path: path)
            }
            return entries
        }
    }

    /// Binds a record to its vault scope and entry, so that it cannot be moved elsewhere.
    private static func recordAAD(scope: String, id: Data) -> Data {
        var aad = Data("stash.vault.record".utf8)
        aad.append(contentsOf: scope.utf8)
        aad.append(0)
        aad.append(id)
        return aad
    }
}
