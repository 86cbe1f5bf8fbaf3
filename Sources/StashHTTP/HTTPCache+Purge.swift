import Foundation
import HTTPTypes
import StashCache

/// Forgetting every response under a URL prefix: an operator's purge of a section of a site.
extension HTTPCache {
    /// Forgets the responses stored for every URL that starts with `prefix` (every variant,
    /// and the body files they keep), such as `https://example.com/news/`. Scheme and host are
    /// compared case-insensitively, the path exactly; a prefix without a path stands for the
    /// whole origin. With ``sharedStorage``, removes them for every cache on that storage
    /// (keys too long to be stored as they are, kept under a digest, cannot be matched by
    /// prefix and stay until they expire or are replaced).
    ///
    /// ```swift
    /// await cache.removeResponses(withURLPrefix: "https://example.com/news/")
    /// ```
    ///
    /// **Durability:** on disk the removal is committed (flushed) before it returns; with
    /// shared storage it is in that storage. **Threads:** safe from any task, concurrently
    /// with lookups and stores (a store racing the purge may land after it).
    ///
    /// - returns: How many URLs were forgotten (`nil` with ``sharedStorage``, which does not
    ///   say), or `nil` when `prefix` is not an absolute `http` or `https` URL prefix.
    @discardableResult
    public func removeResponses(withURLPrefix prefix: String) async -> Int? {
        guard let keyPrefix = Self.storageKeyPrefix(of: prefix) else { return nil }
        if let sharedStorage {
            await backgroundWrites.wait()
            try? await sharedStorage.removeAll(withKeyPrefix: Self.sharedKeyPrefix + keyPrefix)
            return nil
        }
        let keys = Set(memory.keys + (hybrid?.disk.keys ?? [])).filter { $0.hasPrefix(keyPrefix) }
        for key in keys {
            guard let hybrid else {
                memory.removeValue(forKey: key)
                continue
            }
            let old = hybrid.value(forKey: key) ?? []
            hybrid.removeValue(forKey: key)
            removeBodyFiles(of: old, keeping: [])
        }
        if let disk = hybrid?.disk { try? await disk.flush() }
        return keys.count
    }

    /// The start of the storage keys of the URLs under `prefix` (`scheme://authority/path`),
    /// normalized as ``PrimaryCacheKey`` normalizes them.
    static func storageKeyPrefix(of prefix: String) -> String? {
        guard let separator = prefix.range(of: "://") else { return nil }
        let scheme = prefix[..<separator.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else { return nil }
        let rest = prefix[separator.upperBound...]
        let pathStart = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = String(rest[..<pathStart])
        guard !authority.isEmpty else { return nil }
        let path = String(rest[pathStart...])
        return PrimaryCacheKey(scheme: scheme, authority: authority, path: path.isEmpty ? "/" : path)?.storageKey
    }
}
