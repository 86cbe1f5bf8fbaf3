import StashCache

/// The one path between the RFC engine and storage: the variants of a URL live under its
/// ``PrimaryCacheKey/storageKey`` in a `MemoryCache`, or in a `HybridCache` (the same
/// memory in front of a DiskCache) when the cache has a directory.
extension HTTPCache {
    /// The variants stored for `key`, oldest first; empty when none (or when the disk copy
    /// does not decode, which also removes it).
    func variants(for key: PrimaryCacheKey) -> [StoredResponse] {
        if let hybrid { return hybrid.value(forKey: key.storageKey) ?? [] }
        return memory.value(forKey: key.storageKey) ?? []
    }

    /// Replaces the variants of `key`; an empty array removes them.
    func setVariants(_ variants: [StoredResponse], for key: PrimaryCacheKey) {
        if variants.isEmpty {
            if let hybrid { hybrid.removeValue(forKey: key.storageKey) } else { memory.removeValue(forKey: key.storageKey) }
            return
        }
        guard let hybrid else {
            memory.set(variants, forKey: key.storageKey)
            return
        }
        // A store the disk refuses (full, closed) must not leave an older variant behind.
        if (try? hybrid.set(variants, forKey: key.storageKey)) == nil { hybrid.removeValue(forKey: key.storageKey) }
    }
}
