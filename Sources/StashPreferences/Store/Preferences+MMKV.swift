public import Foundation
import StashCore

extension Preferences {
    /// How to read an MMKV value, whose file does not say (see ``importMMKV(file:types:)``).
    ///
    /// ```swift
    /// try prefs.importMMKV(file: mmkv, types: ["volume": .double, "muted": .bool, "avatar": .data])
    /// ```
    public enum MMKVValueType: Sendable, Hashable {
        /// `encode(bool)`: a varint, 0 or 1.
        case bool
        /// `encode(int32)` or `encode(int64)`: a varint of the two's complement bits.
        case integer
        /// `encode(uint32)` or `encode(uint64)`: a varint.
        case unsignedInteger
        /// `encode(float)`: 4 little-endian bytes.
        case float
        /// `encode(double)`: 8 little-endian bytes.
        case double
        /// `encode(string)`: a varint length and UTF-8.
        case string
        /// `encode(bytes)`: a varint length and the bytes.
        case data
    }

    /// Imports an unencrypted MMKV file (Tencent's key-value store) into this suite, in one
    /// call: for users moving from MMKV. Existing keys that the file also has are
    /// overwritten; other keys stay.
    ///
    /// ```swift
    /// let mmkv = documents.appendingPathComponent("mmkv/settings")   // beside it: settings.crc
    /// let count = try prefs.importMMKV(file: mmkv, types: ["volume": .double, "muted": .bool])
    /// ```
    ///
    /// MMKV does not store types, so name the type of each key you know (`types`); any other
    /// value is guessed: 8 or 4 bytes that read as an ordinary Double or Float (magnitude
    /// 1e-6 to 1e12) are one, exactly one varint is an integer (so a Bool arrives as 0 or 1, which
    /// `bool(forKey:)` reads as a Bool), a length-prefixed valid UTF-8 text is a string,
    /// other length-prefixed bytes are data, 8 bytes a Double, 4 bytes a Float. When
    /// `<file>.crc` exists, the file must match its checksum.
    ///
    /// All entries are appended under one file lock, then flushed to the device.
    ///
    /// - returns: How many keys were imported.
    /// - throws: ``/StashCore/StashError/Code/notFound`` when the file is missing,
    ///   ``/StashCore/StashError/Code/corruptFile`` when it is not an unencrypted MMKV file or fails its
    ///   checksum, ``/StashCore/StashError/Code/typeMismatch`` when a value does not have the type
    ///   `types` names, ``/StashCore/StashError/Code/invalidKey`` for a key holding NUL. Nothing is
    ///   imported then.
    @discardableResult
    public func importMMKV(file: URL, types: [String: MMKVValueType] = [:]) throws -> Int {
        let crcURL = URL(fileURLWithPath: file.path + ".crc")
        let crc = FileStore.exists(crcURL) ? try FileStore.read(crcURL) : nil
        let mmkv = try MMKVFile(data: try FileStore.read(file), crc: crc, path: file.path)
        let values = try mmkv.items.map { item in
            do {
                return (key: item.key, value: try MMKVFile.value(item.bytes, as: types[item.key]))
            } catch var error as StashError {
                error.key = item.key
                error.path = file.path
                throw error
            }
        }
        try run { engine in
            try engine.write(batch: values.map { ($0.key, $0.value, nil) })
            try engine.log?.sync(metadata: true)
        }
        return values.count
    }
}
