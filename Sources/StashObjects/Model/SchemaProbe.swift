import Foundation
import StashCore

/// Learns a model's columns without an instance: it runs the model's `init(from:)` against a
/// decoder that answers every question with a neutral value (0, "", false, nil) and records
/// which keys were asked for, with which type, optional or not.
///
/// Enums with a raw value decode from that raw value; when the neutral value is not one of
/// theirs, the enum must be `CaseIterable` so that the probe can pick its first case.
final class SchemaProbe: Decoder {
    /// What a nested value turned out to be stored as.
    var storage: ColumnType?
    var columns: [Column] = []
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    let model: String

    init(model: String) { self.model = model }

    static func columns<M: Model>(of type: M.Type) throws -> [Column] {
        let probe = SchemaProbe(model: String(describing: M.self))
        _ = try M(from: probe)
        return probe.columns
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        if storage == nil { storage = .json }
        return KeyedDecodingContainer(KeyedProbe<Key>(probe: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        storage = .json
        return EmptyUnkeyedProbe()
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleValueProbe(probe: self) }

    func record(_ key: some CodingKey, _ type: ColumnType, optional: Bool) {
        guard !columns.contains(where: { $0.name == key.stringValue }) else { return }
        columns.append(Column(name: key.stringValue, type: type, isOptional: optional))
    }

    /// The storage of a primitive type, or `nil` for a type that needs probing.
    static func primitive(_ type: Any.Type) -> ColumnType? {
        switch type {
        case is Int.Type, is Int8.Type, is Int16.Type, is Int32.Type, is Int64.Type,
             is UInt.Type, is UInt8.Type, is UInt16.Type, is UInt32.Type, is UInt64.Type, is Bool.Type:
            .integer
        case is Double.Type, is Float.Type, is Date.Type: .real
        case is String.Type, is UUID.Type, is URL.Type: .text
        case is Data.Type: .blob
        default: nil
        }
    }

    static func neutral<T>(_ type: T.Type) -> T? {
        switch type {
        case is Date.Type: Date(timeIntervalSince1970: 0) as? T
        case is UUID.Type: UUID() as? T
        case is URL.Type: URL(string: "about:blank") as? T
        case is Data.Type: Data() as? T
        default: nil
        }
    }

    /// Probes a nested value: returns a neutral instance and how it is stored.
    func nested<T: Decodable>(_ type: T.Type, key: some CodingKey) throws -> (T?, ColumnType) {
        if let storage = Self.primitive(type) { return (Self.neutral(type), storage) }
        let inner = SchemaProbe(model: model)
        do {
            let value = try T(from: inner)
            return (value, inner.storage ?? .json)
        } catch {
            if let cases = type as? any CaseIterable.Type, let first = Self.first(of: cases) as? T {
                return (first, inner.storage ?? .json)
            }
            return (nil, inner.storage ?? .json)
        }
    }

    private static func first<C: CaseIterable>(of type: C.Type) -> Any? { C.allCases.first }

    func unsupported(_ type: Any.Type, _ key: some CodingKey) -> StashError {
        StashError(
            .unsupportedValue,
            "\(model).\(key.stringValue): \(type) cannot be probed for its column; make it CaseIterable or give it a neutral value",
            key: "\(model).\(key.stringValue)"
        )
    }
}

private struct KeyedProbe<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let probe: SchemaProbe
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [] }

    func contains(_ key: Key) -> Bool { true }
    func decodeNil(forKey key: Key) throws -> Bool {
        false
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { probe.record(key, .integer, optional: false); return false }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { probe.record(key, .text, optional: false); return "" }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { probe.record(key, .real, optional: false); return 0 }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { probe.record(key, .real, optional: false); return 0 }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { probe.record(key, .integer, optional: false); return 0 }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { probe.record(key, .integer, optional: false); return 0 }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { probe.record(key, .integer, optional: false); return 0 }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { probe.record(key, .integer, optional: false); return 0 }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { probe.record(key, .integer, optional: false); return 0 }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { probe.record(key, .integer, optional: false); return 0 }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { probe.record(key, .integer, optional: false); return 0 }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { probe.record(key, .integer, optional: false); return 0 }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { probe.record(key, .integer, optional: false); return 0 }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { probe.record(key, .integer, optional: false); return 0 }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let (value, storage) = try probe.nested(type, key: key)
        probe.record(key, storage, optional: false)
        guard let value else { throw probe.unsupported(type, key) }
        return value
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { probe.record(key, .integer, optional: true); return nil }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { probe.record(key, .text, optional: true); return nil }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { probe.record(key, .real, optional: true); return nil }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { probe.record(key, .real, optional: true); return nil }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { probe.record(key, .integer, optional: true); return nil }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { probe.record(key, .integer, optional: true); return nil }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { probe.record(key, .integer, optional: true); return nil }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { probe.record(key, .integer, optional: true); return nil }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { probe.record(key, .integer, optional: true); return nil }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { probe.record(key, .integer, optional: true); return nil }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { probe.record(key, .integer, optional: true); return nil }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { probe.record(key, .integer, optional: true); return nil }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { probe.record(key, .integer, optional: true); return nil }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { probe.record(key, .integer, optional: true); return nil }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        let (_, storage) = try probe.nested(type, key: key)
        probe.record(key, storage, optional: true)
        return nil
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        probe.record(key, .json, optional: false)
        return KeyedDecodingContainer(KeyedProbe<NestedKey>(probe: SchemaProbe(model: probe.model)))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        probe.record(key, .json, optional: false)
        return EmptyUnkeyedProbe()
    }

    func superDecoder() throws -> any Decoder { SchemaProbe(model: probe.model) }
    func superDecoder(forKey key: Key) throws -> any Decoder { SchemaProbe(model: probe.model) }
}

private struct SingleValueProbe: SingleValueDecodingContainer {
    let probe: SchemaProbe
    var codingPath: [any CodingKey] { [] }

    func decodeNil() -> Bool { false }
    func decode(_ type: Bool.Type) throws -> Bool { probe.storage = .integer; return false }
    func decode(_ type: String.Type) throws -> String { probe.storage = .text; return "" }
    func decode(_ type: Double.Type) throws -> Double { probe.storage = .real; return 0 }
    func decode(_ type: Float.Type) throws -> Float { probe.storage = .real; return 0 }
    func decode(_ type: Int.Type) throws -> Int { probe.storage = .integer; return 0 }
    func decode(_ type: Int8.Type) throws -> Int8 { probe.storage = .integer; return 0 }
    func decode(_ type: Int16.Type) throws -> Int16 { probe.storage = .integer; return 0 }
    func decode(_ type: Int32.Type) throws -> Int32 { probe.storage = .integer; return 0 }
    func decode(_ type: Int64.Type) throws -> Int64 { probe.storage = .integer; return 0 }
    func decode(_ type: UInt.Type) throws -> UInt { probe.storage = .integer; return 0 }
    func decode(_ type: UInt8.Type) throws -> UInt8 { probe.storage = .integer; return 0 }
    func decode(_ type: UInt16.Type) throws -> UInt16 { probe.storage = .integer; return 0 }
    func decode(_ type: UInt32.Type) throws -> UInt32 { probe.storage = .integer; return 0 }
    func decode(_ type: UInt64.Type) throws -> UInt64 { probe.storage = .integer; return 0 }
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if let storage = SchemaProbe.primitive(type), let value = SchemaProbe.neutral(type) {
            probe.storage = storage
            return value
        }
        probe.storage = .json
        return try T(from: SchemaProbe(model: probe.model))
    }
}

private struct EmptyUnkeyedProbe: UnkeyedDecodingContainer {
    var codingPath: [any CodingKey] { [] }
    var count: Int? { 0 }
    var isAtEnd: Bool { true }
    var currentIndex: Int { 0 }
    mutating func decodeNil() throws -> Bool { true }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        throw StashError(.unsupportedValue, "schema probe reads no element")
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        KeyedDecodingContainer(KeyedProbe<NestedKey>(probe: SchemaProbe(model: "")))
    }
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { self }
    mutating func superDecoder() throws -> any Decoder { SchemaProbe(model: "") }
}
