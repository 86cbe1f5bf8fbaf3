import Foundation
import StashCore
import GRDBSQLite

/// Decodes a model straight from the current row of a prepared `SELECT` of its columns in
/// declaration order, column by column through the SQLite C API: no intermediate row or
/// dictionary. The synthesized `init(from:)` asks for keys in declaration order, so each key
/// is found by checking the next expected name first; a custom `init(from:)` that asks in
/// another order still works, through a dictionary.
///
/// Every mismatch (text in an integer column written by another program, JSON that no
/// longer decodes, NULL in a non-optional attribute) is a ``/StashCore/StashError`` naming model and
/// attribute.
final class RowDecoder: Decoder {
    let schema: ModelSchema
    /// The column names in `SELECT` order, read once per attribute of every row.
    let names: ContiguousArray<String>
    var statement: OpaquePointer?
    var cursor = 0
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    /// The keyed container handed out last, and its key type: every row of a model asks for
    /// the same one, so it is boxed once per statement instead of once per row.
    private var lastContainer: AnyObject?
    private var lastKeyType: ObjectIdentifier?
    /// The model's ``ColumnDecodable`` path (a `ColumnDecodablePath<M>`), looked up at the
    /// first row.
    private var columnPath: AnyObject?
    private var columnPathChecked = false

    init(schema: ModelSchema) {
        self.schema = schema
        names = ContiguousArray(schema.columns.map(\.name))
    }

    /// Decodes the row `statement` stands on: through ``ColumnDecodable/init(row:)`` when
    /// the model has it, else through its `init(from:)`. One decoder decodes one model type.
    @inline(__always)
    func decode<M: Model>(_ type: M.Type, from statement: OpaquePointer) throws -> M {
        self.statement = statement
        cursor = 0
        if !columnPathChecked {
            columnPath = ColumnDecodablePath.of(M.self)
            columnPathChecked = true
        }
        if let columnPath {
            return try unsafeDowncast(columnPath, to: ColumnDecodablePath<M>.self).read(ObjectRow(self))
        }
        return try M(from: self)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        if lastKeyType == ObjectIdentifier(Key.self), let last = lastContainer {
            return unsafeDowncast(last, to: KeyedContainerBox<Key>.self).container
        }
        let container = KeyedDecodingContainer(RowKeyedContainer<Key>(decoder: self))
        lastContainer = KeyedContainerBox(container)
        lastKeyType = ObjectIdentifier(Key.self)
        return container
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw StashError(.typeMismatch, "\(schema.modelName) decodes from a keyed container only", key: schema.modelName)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw StashError(.typeMismatch, "\(schema.modelName) decodes from a keyed container only", key: schema.modelName)
    }

    @inline(__always)
    func index(_ key: some CodingKey) throws -> Int32 {
        try index(named: key.stringValue)
    }

    /// The column of attribute `name`: the next one in `SELECT` order when it is that one
    /// (one comparison), else looked up.
    @inline(__always)
    func index(named name: String) throws -> Int32 {
        let cursor = self.cursor
        if cursor < names.count, names[cursor] == name {
            self.cursor = cursor + 1
            return Int32(cursor)
        }
        guard let index = schema.columnIndex[name] else {
            throw StashError(.unknownAttribute, "\(schema.modelName).\(name) is not a stored attribute", key: "\(schema.modelName).\(name)")
        }
        self.cursor = index + 1
        return Int32(index)
    }

    func mismatch(_ index: Int32, _ expected: String) -> StashError {
        let name = schema.columns[Int(index)].name
        let found: String
        switch sqlite3_column_type(statement, index) {
        case SQLITE_NULL: found = "NULL"
        case SQLITE_INTEGER: found = "an integer"
        case SQLITE_FLOAT: found = "a real"
        case SQLITE_TEXT: found = "text '\(text(index).prefix(40))'"
        default: found = "a blob"
        }
        return StashError(.typeMismatch, "\(schema.modelName).\(name): expected \(expected), found \(found)", key: "\(schema.modelName).\(name)")
    }

    @inline(__always)
    func isNull(_ index: Int32) -> Bool { sqlite3_column_type(statement, index) == SQLITE_NULL }

    /// An optional attribute: `nil` for NULL, else what `read` reads from column `index`.
    @inline(__always)
    func optional<T>(_ index: Int32, _ read: (RowDecoder, Int32) throws -> T) rethrows -> T? {
        isNull(index) ? nil : try read(self, index)
    }

    @inline(__always)
    func integer(_ index: Int32) throws -> Int64 {
        guard sqlite3_column_type(statement, index) == SQLITE_INTEGER else { throw mismatch(index, "an integer") }
        return sqlite3_column_int64(statement, index)
    }

    /// An integer column read as `T` (`Int`, `Int32`, `UInt8`, …): the one checked conversion
    /// of a stored `Int64` to a narrower type. A value out of `T`'s range is
    /// ``/StashCore/StashError/Code/typeMismatch`` naming model and attribute, never a trap (`Int(_:)`
    /// from an `Int64` traps on 32-bit platforms such as watchOS); so is a negative value
    /// read as `UInt64`.
    @inline(__always)
    func integer<T: FixedWidthInteger>(_ index: Int32, as type: T.Type) throws -> T {
        let value = try integer(index)
        if let fitted = T(exactly: value) { return fitted }
        throw outOfRange(index, value, T.self)
    }

    private func outOfRange(_ index: Int32, _ value: Int64, _ type: Any.Type) -> StashError {
        let key = "\(schema.modelName).\(schema.columns[Int(index)].name)"
        return StashError(.typeMismatch, "\(key): \(value) does not fit \(type)", key: key)
    }

    @inline(__always)
    func real(_ index: Int32) throws -> Double {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_FLOAT, SQLITE_INTEGER: return sqlite3_column_double(statement, index)
        default: throw mismatch(index, "a number")
        }
    }

    @inline(__always)
    func text(_ index: Int32) -> String {
        guard let bytes = sqlite3_column_text(statement, index) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, index))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    func string(_ index: Int32) throws -> String {
        guard sqlite3_column_type(statement, index) == SQLITE_TEXT else { throw mismatch(index, "text") }
        return text(index)
    }

    func blob(_ index: Int32) throws -> Data {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, index))
            guard let bytes = sqlite3_column_blob(statement, index), count > 0 else { return Data() }
            return Data(bytes: bytes, count: count)
        case SQLITE_TEXT: return Data(text(index).utf8)
        default: throw mismatch(index, "a blob")
        }
    }

    /// Values that are not SQLite primitives: Foundation types, raw-value enums, JSON.
    func value<T: Decodable>(_ type: T.Type, at index: Int32) throws -> T {
        switch type {
        case is Date.Type:
            return Date(timeIntervalSince1970: try real(index)) as! T
        case is UUID.Type:
            if sqlite3_column_type(statement, index) == SQLITE_BLOB, sqlite3_column_bytes(statement, index) == 16,
               let bytes = sqlite3_column_blob(statement, index) {
                let raw = bytes.assumingMemoryBound(to: UInt8.self)
                return UUID(uuid: (raw[0], raw[1], raw[2], raw[3], raw[4], raw[5], raw[6], raw[7], raw[8], raw[9], raw[10], raw[11], raw[12], raw[13], raw[14], raw[15])) as! T
            }
            guard let uuid = UUID(uuidString: try string(index)) else { throw mismatch(index, "a UUID") }
            return uuid as! T
        case is URL.Type:
            guard let url = URL(string: try string(index)) else { throw mismatch(index, "a URL") }
            return url as! T
        case is Data.Type:
            return try blob(index) as! T
        default:
            break
        }
        if schema.columns[Int(index)].type == .json {
            let json = try blob(index)
            do {
                return try JSONDecoder().decode(T.self, from: json)
            } catch {
                let name = schema.columns[Int(index)].name
                throw StashError(.typeMismatch, "\(schema.modelName).\(name): stored JSON does not decode as \(T.self): \(error)", key: "\(schema.modelName).\(name)")
            }
        }
        do {
            return try T(from: ColumnDecoder(row: self, index: index))
        } catch let error as DecodingError {
            throw mismatch(index, "a valid \(T.self) (\(error))")
        }
    }
}

/// A keyed container kept by its ``RowDecoder`` for the next rows.
private final class KeyedContainerBox<Key: CodingKey> {
    let container: KeyedDecodingContainer<Key>
    init(_ container: KeyedDecodingContainer<Key>) { self.container = container }
}

/// The decoder's keyed container. It refers to its decoder without retaining it: the
/// standard library's box copies the container for every attribute it decodes, and a strong
/// reference made that a retain and a release each time (with `swift_retain`/`swift_release`
/// at the top of a `perf` profile of `fetch`). The decoder keeps the container (no cycle)
/// and outlives every `init(from:)` it runs, the only place the container is used.
private struct RowKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let unmanaged: Unmanaged<RowDecoder>
    var codingPath: [any CodingKey] { [] }

    init(decoder: RowDecoder) { unmanaged = Unmanaged.passUnretained(decoder) }

    /// The decoder, borrowed for `body` without retaining it.
    @inline(__always)
    private func with<T>(_ body: (RowDecoder) throws -> T) rethrows -> T {
        try unmanaged._withUnsafeGuaranteedRef(body)
    }

    /// The decoder, retained (off the hot path).
    private var decoder: RowDecoder { unmanaged.takeUnretainedValue() }
    var allKeys: [Key] { decoder.schema.columns.compactMap { Key(stringValue: $0.name) } }

    func contains(_ key: Key) -> Bool { decoder.schema.columnIndex[key.stringValue] != nil }

    func decodeNil(forKey key: Key) throws -> Bool {
        guard let index = decoder.schema.columnIndex[key.stringValue] else { return true }
        return decoder.isNull(Int32(index))
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try with { try $0.integer($0.index(key)) != 0 } }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try with { try $0.string($0.index(key)) } }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try with { try $0.real($0.index(key)) } }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try with { Float(try $0.real($0.index(key))) } }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try with { try $0.integer($0.index(key), as: type) } }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try with { try $0.integer($0.index(key), as: type) } }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try with { try $0.integer($0.index(key), as: type) } }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try with { try $0.integer($0.index(key), as: type) } }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try with { try $0.integer($0.index(key)) } }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try with { try $0.integer($0.index(key), as: type) } }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try with { try $0.integer($0.index(key), as: type) } }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try with { try $0.integer($0.index(key), as: type) } }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try with { try $0.integer($0.index(key), as: type) } }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try with { try $0.integer($0.index(key), as: type) } }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try with { decoder in
            let index = try decoder.index(key)
            if decoder.isNull(index) { throw decoder.mismatch(index, "a value") }
            return try decoder.value(type, at: index)
        }
    }

    @inline(__always)
    private func optional<T>(_ key: Key, _ read: (RowDecoder, Int32) throws -> T) throws -> T? {
        try with { decoder in try decoder.optional(decoder.index(key), read) }
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try optional(key) { try $0.integer($1) != 0 } }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try optional(key) { try $0.string($1) } }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try optional(key) { try $0.real($1) } }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try optional(key) { Float(try $0.real($1)) } }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try optional(key) { try $0.integer($1, as: type) } }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try optional(key) { try $0.integer($1, as: type) } }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try optional(key) { try $0.integer($1, as: type) } }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try optional(key) { try $0.integer($1, as: type) } }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try optional(key) { try $0.integer($1) } }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try optional(key) { try $0.integer($1, as: type) } }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try optional(key) { try $0.integer($1, as: type) } }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try optional(key) { try $0.integer($1, as: type) } }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try optional(key) { try $0.integer($1, as: type) } }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try optional(key) { try $0.integer($1, as: type) } }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try optional(key) { try $0.value(type, at: $1) }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        throw StashError(.typeMismatch, "\(decoder.schema.modelName).\(key.stringValue): nested containers are stored as JSON values; decode a Codable type instead", key: "\(decoder.schema.modelName).\(key.stringValue)")
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw StashError(.typeMismatch, "\(decoder.schema.modelName).\(key.stringValue): nested containers are stored as JSON values; decode a Codable type instead", key: "\(decoder.schema.modelName).\(key.stringValue)")
    }

    func superDecoder() throws -> any Decoder { decoder }
    func superDecoder(forKey key: Key) throws -> any Decoder { decoder }
}

/// One column as a single value: raw-value enums and other single-value `Codable` types.
private struct ColumnDecoder: Decoder, SingleValueDecodingContainer {
    let row: RowDecoder
    let index: Int32
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> { throw row.mismatch(index, "a JSON object") }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw row.mismatch(index, "a JSON array") }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { row.isNull(index) }
    func decode(_ type: Bool.Type) throws -> Bool { try row.integer(index) != 0 }
    func decode(_ type: String.Type) throws -> String { try row.string(index) }
    func decode(_ type: Double.Type) throws -> Double { try row.real(index) }
    func decode(_ type: Float.Type) throws -> Float { Float(try row.real(index)) }
    func decode(_ type: Int.Type) throws -> Int { try row.integer(index, as: type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try row.integer(index, as: type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try row.integer(index, as: type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try row.integer(index, as: type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try row.integer(index) }
    func decode(_ type: UInt.Type) throws -> UInt { try row.integer(index, as: type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try row.integer(index, as: type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try row.integer(index, as: type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try row.integer(index, as: type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try row.integer(index, as: type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try row.value(type, at: index) }
}
