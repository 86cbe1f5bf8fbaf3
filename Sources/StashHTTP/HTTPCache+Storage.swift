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

    /// Replaces `old`, the variants of `key` as the caller read them (`nil`: not read),
    /// with `new`; an empty array removes them.
    func setVariants(_ new: [StoredResponse], replacing old: [StoredResponse]?, for key: PrimaryCacheKey) async {
        if let sharedStorage { return await setSharedVariants(new, for: key, in: sharedStorage) }
        setLocalVariants(new, replacing: old ?? localVariants(for: key), for: key)
    }

    /// The variants of `key` in this process's memory or disk.
    func localVariants(for key: PrimaryCacheKey) -> [StoredResponse] {
        guard let hybrid else { return memory.value(forKey: key.storageKey) ?? [] }
        return hybrid.value(forKey: key.storageKey) ?? []
    }

    /// The variants of `key` in this process's memory; the disk is not read (memory is the
    /// front of `hybrid` when there is one).
    func memoryVariants(for key: PrimaryCacheKey) -> [StoredResponse] {
        memory.value(forKey: key.storageKey) ?? []
    }

    /// Replaces `old`, the variants of `key` in this process's memory or disk as the caller
    /// read them, with `new`; the body files of the variants replaced or removed go with
    /// them, and when the disk refuses the write (full, closed), the body files of both.
    /// Two stores of one URL at once may each miss the other's body file, which then stays
    /// until trimming removes it.
    func setLocalVariants(_ new: [StoredResponse], replacing old: [StoredResponse], for key: PrimaryCacheKey) {
        guard let hybrid else {
            if new.isEmpty { memory.removeValue(forKey: key.storageKey) } else { memory.set(new, forKey: key.storageKey) }
            return
        }
        if new.isEmpty {
            hybrid.removeValue(forKey: key.storageKey)
        } else if (try? hybrid.set(new, forKey: key.storageKey)) == nil {
            // A store the disk refuses must not leave an older variant behind, nor a body
            // file nothing refers to.
            hybrid.removeValue(forKey: key.storageKey)
            removeBodyFiles(of: old + new, keeping: [])
            return
        }
        removeBodyFiles(of: old, keeping: new)
    }
}
