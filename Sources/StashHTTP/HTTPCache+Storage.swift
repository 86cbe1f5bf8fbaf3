import StashCache

/// The one path between the RFC engine and storage: the variants of a URL live under its
/// ``PrimaryCacheKey/storageKey`` in a `MemoryCache`, or in a `HybridCache` (the same
/// memory in front of a DiskCache) when the cache has a directory, or in shared storage
/// (``HTTPCache/SharedStorage``). The local stores answer synchronously (the fast path of
/// ``HTTPCache/cachedResponse(for:)``); the async functions take whichever the cache has.
extension HTTPCache {
    /// The variants stored for `key`, oldest first; empty when none (or when the stored
    /// copy does not decode, which also removes it).
    func variants(for key: PrimaryCacheKey) async -> [StoredResponse] {
        if let sharedStorage { return await sharedVariants(for: key, in: sharedStorage) }
        return localVariants(for: key)
    }

    /// Replaces the variants of `key`; an empty array removes them.
    func setVariants(_ variants: [StoredResponse], for key: PrimaryCacheKey) async {
        if let sharedStorage { return await setSharedVariants(variants, for: key, in: sharedStorage) }
        setLocalVariants(variants, for: key)
    }

    /// The variants of `key` in this process's memory or disk.
    func localVariants(for key: PrimaryCacheKey) -> [StoredResponse] {
        guard let hybrid else { return memory.value(forKey: key.storageKey) ?? [] }
        let variants = hybrid.value(forKey: key.storageKey) ?? []
        let present = withBodyFilesPresent(variants)
        if present.count != variants.count { setLocalVariants(present, for: key) }
        return present
    }

    /// The variants of `key` in this process's memory; the disk is not read (memory is the
    /// front of `hybrid` when there is one).
    func memoryVariants(for key: PrimaryCacheKey) -> [StoredResponse] {
        memory.value(forKey: key.storageKey) ?? []
    }

    /// Replaces the variants of `key` in this process's memory or disk; the body files of
    /// the variants replaced or removed go with them.
    func setLocalVariants(_ variants: [StoredResponse], for key: PrimaryCacheKey) {
        guard let hybrid else {
            if variants.isEmpty { memory.removeValue(forKey: key.storageKey) } else { memory.set(variants, forKey: key.storageKey) }
            return
        }
        let old = hybrid.value(forKey: key.storageKey) ?? []
        defer { removeBodyFiles(of: old, keeping: variants) }
        if variants.isEmpty {
            hybrid.removeValue(forKey: key.storageKey)
            return
        }
        // A store the disk refuses (full, closed) must not leave an older variant behind.
        if (try? hybrid.set(variants, forKey: key.storageKey)) == nil { hybrid.removeValue(forKey: key.storageKey) }
    }
}
