import StashCore

/// A key of a ``SharedCache`` as the table stores it: the key's normal form (``StoredKey``)
/// and the first 8 bytes of its SHA-256 as a signed 64-bit integer, the indexed column.
/// The full key is compared on every read, so two keys with one hash never see each other's
/// value.
struct SharedCacheKey: Hashable, Sendable {
    /// Keys longer than this (in UTF-8 bytes, after normalization) are refused.
    static let maximumBytes = 1024

    let text: String
    let hash: Int64

    /// - throws: `StashError(.invalidKey)` when `key` is empty, longer than 1 KB or holds NUL.
    init(_ key: String) throws {
        let normalized = try StoredKey.normalized(key)
        let count = normalized.utf8.count
        guard count > 0 else {
            throw StashError(.invalidKey, "a shared cache key may not be empty", key: key)
        }
        guard count <= Self.maximumBytes else {
            throw StashError(
                .invalidKey, "a shared cache key is at most \(Self.maximumBytes) bytes of UTF-8, this one is \(count)",
                key: String(StoredKey.printable(key).prefix(64)) + "…"
            )
        }
        text = normalized
        let digest = SHA256.digest(of: normalized.utf8)
        var bits: UInt64 = 0
        for byte in digest.prefix(8) { bits = bits << 8 | UInt64(byte) }
        hash = Int64(bitPattern: bits)
    }
}
