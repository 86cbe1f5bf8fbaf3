public import Foundation
import StashCore

/// Any `Codable` value as a binary property list: compact and quick to decode, the format
/// of NSKeyedArchiver-era caches.
///
/// ```swift
/// let settings = try HybridCache(disk: disk, codec: .propertyList(Settings.self))
/// ```
public struct PropertyListCodec<Value: Codable & Sendable>: CacheCodec {
    /// A binary property list codec for `Value`.
    public init(_ type: Value.Type = Value.self) {}

    public func encode(_ value: Value) throws -> Data {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        do {
            return try encoder.encode(value)
        } catch {
            throw StashError(.unsupportedValue, "cannot encode \(Value.self) as a property list: \(error)")
        }
    }

    public func decode(_ data: Data) throws -> Value {
        do {
            return try PropertyListDecoder().decode(Value.self, from: data)
        } catch {
            throw StashError(.corruptFile, "cannot decode \(Value.self) from a property list: \(error)")
        }
    }
}

extension CacheCodec {
    /// `Value` as a binary property list.
    public static func propertyList<Value>(_ type: Value.Type = Value.self) -> PropertyListCodec<Value> where Self == PropertyListCodec<Value> {
        PropertyListCodec(type)
    }
}
