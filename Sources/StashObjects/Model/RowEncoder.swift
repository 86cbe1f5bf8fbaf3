import Foundation
import StashCore
import GRDBSQLite

private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// Encodes a model straight into the parameters of a prepared statement: the attribute at
/// declaration position `i` binds parameter `?i+1`, so the same encoder fills the model's
/// `INSERT`, `UPDATE` and upsert statements. No dictionary, no intermediate values.
final class RowEncoder: Encoder {
    let schema: ModelSchema
    var statement: OpaquePointer?
    var cursor = 0
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(schema: ModelSchema) { self.schema = schema }

    /// Binds every attribute of `model` to `statement`, which must be reset.
    @inline(__always)
    func bind<M: Model>(_ model: M, to statement: OpaquePointer) throws {
        self.statement = statement
        cursor = 0
        sqlite3_clear_bindings(statement)
        try model.encode(to: self)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(RowKeyedEncodingContainer<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer { FailingUnkeyed(model: schema.modelName) }
    func singleValueContainer() -> any SingleValueEncodingContainer { ColumnEncoder(row: self, index: -1) }

    @inline(__always)
    func index(_ key: some CodingKey) throws -> Int32 {
        let name = key.stringValue
        if cursor < schema.columns.count, schema.columns[cursor].name == name {
            defer { cursor += 1 }
            return Int32(cursor + 1)
        }
        guard let index = schema.columnIndex[name] else {
            throw StashError(.unknownAttribute, "\(schema.modelName).\(name) is not a stored attribute", key: "\(schema.modelName).\(name)")
        }
        cursor = index + 1
        return Int32(index + 1)
    }

    func invalid(_ parameter: Int32, _ reason: String) -> StashError {
        let name = parameter > 0 ? schema.columns[Int(parameter) - 1].name : "?"
        return StashError(.unsupportedValue, "\(schema.modelName).\(name): \(reason)", key: "\(schema.modelName).\(name)")
    }

    @inline(__always)
    func bindInteger(_ value: Int64, _ parameter: Int32) { sqlite3_bind_int64(statement, parameter, value) }

    func bindReal(_ value: Double, _ parameter: Int32) throws {
        guard !value.isNaN else { throw invalid(parameter, "NaN cannot be stored") }
        sqlite3_bind_double(statement, parameter, value)
    }

    func bindText(_ value: String, _ parameter: Int32) {
        var value = value
        value.withUTF8 { bytes in
            _ = sqlite3_bind_text(statement, parameter, UnsafeRawPointer(bytes.baseAddress!).assumingMemoryBound(to: CChar.self), Int32(bytes.count), transient)
        }
    }

    func bindBlob(_ value: Data, _ parameter: Int32) {
        value.withUnsafeBytes { bytes in
            if let base = bytes.baseAddress {
                _ = sqlite3_bind_blob(statement, parameter, base, Int32(bytes.count), transient)
            } else {
                _ = sqlite3_bind_zeroblob(statement, parameter, 0)
            }
        }
    }

    func bindNull(_ parameter: Int32) { sqlite3_bind_null(statement, parameter) }

    /// An unsigned integer, refused above `Int64.max` (SQLite's largest integer) rather than
    /// stored as a negative bit pattern that filters and sorts would order wrong.
    func bindUnsigned<T: FixedWidthInteger & UnsignedInteger>(_ value: T, _ parameter: Int32) throws {
        guard let stored = Int64(exactly: value) else {
            throw invalid(parameter, "\(value) is above \(Int64.max), the largest integer SQLite stores")
        }
        bindInteger(stored, parameter)
    }

    /// Values that are not SQLite primitives: Foundation types, raw-value enums, JSON.
    func bindValue<T: Encodable>(_ value: T, _ parameter: Int32) throws {
        switch value {
        case let date as Date: try bindReal(date.timeIntervalSince1970, parameter)
        case let uuid as UUID: bindText(uuid.uuidString, parameter)
        case let url as URL: bindText(url.absoluteString, parameter)
        case let data as Data: bindBlob(data, parameter)
        default:
            if parameter > 0, schema.columns[Int(parameter) - 1].type == .json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = .sortedKeys
                do {
                    bindText(String(decoding: try encoder.encode(value), as: UTF8.self), parameter)
                } catch {
                    throw invalid(parameter, "does not encode as JSON: \(error)")
                }
            } else {
                try value.encode(to: ColumnEncoder(row: self, index: parameter))
            }
        }
    }
}

private struct RowKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: RowEncoder
    var codingPath: [any CodingKey] { [] }

    func encodeNil(forKey key: Key) throws { encoder.bindNull(try encoder.index(key)) }
    func encode(_ value: Bool, forKey key: Key) throws { encoder.bindInteger(value ? 1 : 0, try encoder.index(key)) }
    func encode(_ value: String, forKey key: Key) throws { encoder.bindText(value, try encoder.index(key)) }
    func encode(_ value: Double, forKey key: Key) throws { try encoder.bindReal(value, try encoder.index(key)) }
    func encode(_ value: Float, forKey key: Key) throws { try encoder.bindReal(Double(value), try encoder.index(key)) }
    func encode(_ value: Int, forKey key: Key) throws { encoder.bindInteger(Int64(value), try encoder.index(key)) }
    func encode(_ value: Int8, forKey key: Key) throws { encoder.bindInteger(Int64(value), try encoder.index(key)) }
    func encode(_ value: Int16, forKey key: Key) throws { encoder.bindInteger(Int64(value), try encoder.index(key)) }
    func encode(_ value: Int32, forKey key: Key) throws { encoder.bindInteger(Int64(value), try encoder.index(key)) }
    func encode(_ value: Int64, forKey key: Key) throws { encoder.bindInteger(value, try encoder.index(key)) }
    func encode(_ value: UInt, forKey key: Key) throws { try encoder.bindUnsigned(value, try encoder.index(key)) }
    func encode(_ value: UInt8, forKey key: Key) throws { try encoder.bindUnsigned(value, try encoder.index(key)) }
    func encode(_ value: UInt16, forKey key: Key) throws { try encoder.bindUnsigned(value, try encoder.index(key)) }
    func encode(_ value: UInt32, forKey key: Key) throws { try encoder.bindUnsigned(value, try encoder.index(key)) }
    func encode(_ value: UInt64, forKey key: Key) throws { try encoder.bindUnsigned(value, try encoder.index(key)) }
    func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try encoder.bindValue(value, try encoder.index(key)) }

    func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) } }
    func encodeIfPresent(_ value: String?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) } }
    func encodeIfPresent(_ value: Double?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) } }
    func encodeIfPresent(_ value: Float?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) } }
    func encodeIfPresent(_ value: Int?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) } }
    func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) } }
    func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) } }
    func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) } }
    func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) } }
    func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) } }
    func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) } }
    func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) } }
    func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) } }
    func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) } }
    func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) } }

    func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(FailingKeyed<NestedKey>(model: encoder.schema.modelName))
    }
    func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { FailingUnkeyed(model: encoder.schema.modelName) }
    func superEncoder() -> any Encoder { encoder }
    func superEncoder(forKey key: Key) -> any Encoder { encoder }
}

/// One column as a single value: raw-value enums and other single-value `Codable` types.
private struct ColumnEncoder: Encoder, SingleValueEncodingContainer {
    let row: RowEncoder
    let index: Int32
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> { KeyedEncodingContainer(FailingKeyed<Key>(model: row.schema.modelName)) }
    func unkeyedContainer() -> any UnkeyedEncodingContainer { FailingUnkeyed(model: row.schema.modelName) }
    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    func check() throws { if index < 1 { throw row.invalid(index, "a model encodes into a keyed container") } }
    func encodeNil() throws { try check(); row.bindNull(index) }
    func encode(_ value: Bool) throws { try check(); row.bindInteger(value ? 1 : 0, index) }
    func encode(_ value: String) throws { try check(); row.bindText(value, index) }
    func encode(_ value: Double) throws { try check(); try row.bindReal(value, index) }
    func encode(_ value: Float) throws { try check(); try row.bindReal(Double(value), index) }
    func encode(_ value: Int) throws { try check(); row.bindInteger(Int64(value), index) }
    func encode(_ value: Int8) throws { try check(); row.bindInteger(Int64(value), index) }
    func encode(_ value: Int16) throws { try check(); row.bindInteger(Int64(value), index) }
    func encode(_ value: Int32) throws { try check(); row.bindInteger(Int64(value), index) }
    func encode(_ value: Int64) throws { try check(); row.bindInteger(value, index) }
    func encode(_ value: UInt) throws { try check(); try row.bindUnsigned(value, index) }
    func encode(_ value: UInt8) throws { try check(); try row.bindUnsigned(value, index) }
    func encode(_ value: UInt16) throws { try check(); try row.bindUnsigned(value, index) }
    func encode(_ value: UInt32) throws { try check(); try row.bindUnsigned(value, index) }
    func encode(_ value: UInt64) throws { try check(); try row.bindUnsigned(value, index) }
    func encode<T: Encodable>(_ value: T) throws { try check(); try row.bindValue(value, index) }
}

/// Containers a column cannot hold directly (those values are stored as JSON, which the
/// schema probe detects); reaching one means a custom `encode(to:)` differs from its
/// `init(from:)`. Every write through them throws.
private struct FailingKeyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let model: String
    var codingPath: [any CodingKey] { [] }
    func encodeNil(forKey key: Key) throws { throw fail() }
    func encode(_ value: Bool, forKey key: Key) throws { throw fail() }
    func encode(_ value: String, forKey key: Key) throws { throw fail() }
    func encode(_ value: Double, forKey key: Key) throws { throw fail() }
    func encode(_ value: Float, forKey key: Key) throws { throw fail() }
    func encode(_ value: Int, forKey key: Key) throws { throw fail() }
    func encode(_ value: Int8, forKey key: Key) throws { throw fail() }
    func encode(_ value: Int16, forKey key: Key) throws { throw fail() }
    func encode(_ value: Int32, forKey key: Key) throws { throw fail() }
    func encode(_ value: Int64, forKey key: Key) throws { throw fail() }
    func encode(_ value: UInt, forKey key: Key) throws { throw fail() }
    func encode(_ value: UInt8, forKey key: Key) throws { throw fail() }
    func encode(_ value: UInt16, forKey key: Key) throws { throw fail() }
    func encode(_ value: UInt32, forKey key: Key) throws { throw fail() }
    func encode(_ value: UInt64, forKey key: Key) throws { throw fail() }
    func encode<T: Encodable>(_ value: T, forKey key: Key) throws { throw fail() }
    func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(FailingKeyed<NestedKey>(model: model))
    }
    func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { FailingUnkeyed(model: model) }
    func superEncoder() -> any Encoder { FailingEncoder(model: model) }
    func superEncoder(forKey key: Key) -> any Encoder { FailingEncoder(model: model) }
    func fail() -> StashError { StashError(.unsupportedValue, "\(model): encode(to:) writes a container its init(from:) does not read", key: model) }
}

private struct FailingUnkeyed: UnkeyedEncodingContainer, SingleValueEncodingContainer {
    let model: String
    var codingPath: [any CodingKey] { [] }
    var count: Int { 0 }
    mutating func encodeNil() throws { throw fail() }
    mutating func encode(_ value: Bool) throws { throw fail() }
    mutating func encode(_ value: String) throws { throw fail() }
    mutating func encode(_ value: Double) throws { throw fail() }
    mutating func encode(_ value: Float) throws { throw fail() }
    mutating func encode(_ value: Int) throws { throw fail() }
    mutating func encode(_ value: Int8) throws { throw fail() }
    mutating func encode(_ value: Int16) throws { throw fail() }
    mutating func encode(_ value: Int32) throws { throw fail() }
    mutating func encode(_ value: Int64) throws { throw fail() }
    mutating func encode(_ value: UInt) throws { throw fail() }
    mutating func encode(_ value: UInt8) throws { throw fail() }
    mutating func encode(_ value: UInt16) throws { throw fail() }
    mutating func encode(_ value: UInt32) throws { throw fail() }
    mutating func encode(_ value: UInt64) throws { throw fail() }
    mutating func encode<T: Encodable>(_ value: T) throws { throw fail() }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(FailingKeyed<NestedKey>(model: model))
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
    mutating func superEncoder() -> any Encoder { FailingEncoder(model: model) }
    func fail() -> StashError { StashError(.unsupportedValue, "\(model): encode(to:) writes a container its init(from:) does not read", key: model) }
}

private struct FailingEncoder: Encoder {
    let model: String
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> { KeyedEncodingContainer(FailingKeyed<Key>(model: model)) }
    func unkeyedContainer() -> any UnkeyedEncodingContainer { FailingUnkeyed(model: model) }
    func singleValueContainer() -> any SingleValueEncodingContainer { FailingUnkeyed(model: model) }
}
