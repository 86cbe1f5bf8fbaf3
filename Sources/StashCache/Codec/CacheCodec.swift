public import Foundation
import StashCore

/// Turns values into bytes and back, for caches that keep values on disk.
///
/// Stash ships ``DataCodec`` (bytes as they are), ``JSONCodec`` and ``PropertyListCodec``
/// (any `Codable`). Conform your own type for other formats: an image codec, a protobuf.
///
/// ```swift
/// struct ImageCodec: CacheCodec {
///     func encode(_ image: Image) throws -> Data { image.pngData() }
///     func decode(_ data: Data) throws -> Image { try Image(png: data) }
/// }
/// let images = try HybridCache(disk: disk, codec: ImageCodec())
/// ```
///
/// Codecs are called without any cache lock held, so they may be slow; they must be
/// thread-safe.
public protocol CacheCodec<Value>: Sendable {
    /// The type of the values.
    associatedtype Value

    /// The bytes of `value`.
    ///
    /// - throws: ``/StashCore/StashError/Code/unsupportedValue`` (or your own error) when the
    ///   value cannot be encoded.
    func encode(_ value: Value) throws -> Data

    /// The value of `data`.
    ///
    /// - throws: ``/StashCore/StashError/Code/corruptFile`` (or your own error) when the bytes
    ///   are not a value; a cache then drops the entry and reports a miss.
    func decode(_ data: Data) throws -> Value
}

/// Bytes as they are.
///
/// ```swift
/// let cache = try HybridCache(disk: disk, codec: .data)
/// ```
public struct DataCodec: CacheCodec {
    /// The identity codec.
    public init() {}
    public func encode(_ value: Data) throws -> Data { value }
    public func decode(_ data: Data) throws -> Data { data }
}

extension CacheCodec where Self == DataCodec {
    /// Bytes as they are.
    public static var data: DataCodec { DataCodec() }
}
