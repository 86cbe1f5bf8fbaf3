public import Foundation
import StashCore

/// Any `Codable` value as JSON: readable with `stash cache get`, portable, a little larger
/// and slower than a binary property list.
///
/// ```swift
/// let feed = try HybridCache(disk: disk, codec: .json(Feed.self))
/// ```
public struct JSONCodec<Value: Codable & Sendable>: CacheCodec {
    /// A JSON codec for `Value`.
    public init(_ type: Value.Type = Value.self) {}

    public func encode(_ value: Value) throws -> Data {
        do {
            return try JSONEncoder().encode(value)
        } catch {
            throw StashError(.unsupportedValue, "cannot encode \(Value.self) as JSON: \(error)")
        }
    }

    public func decode(_ data: Data) throws -> Value {
        do {
            return try JSONDecoder().decode(Value.self, from: data)
        } catch {
            throw StashError(.corruptFile, "cannot decode \(Value.self) from JSON: \(error)")
        }
    }
}

extension CacheCodec {
    /// `Value` as JSON.
    public static func json<Value>(_ type: Value.Type = Value.self) -> JSONCodec<Value> where Self == JSONCodec<Value> {
        JSONCodec(type)
    }
}
