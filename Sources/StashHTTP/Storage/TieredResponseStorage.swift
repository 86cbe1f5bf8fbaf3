/// Memory in front of disk: reads try memory, then disk (promoting what they find); writes
/// go to both. Thread-safe.
final class TieredResponseStorage: ResponseStorage {
    let memory: MemoryResponseStorage
    let disk: DiskResponseStorage?

    init(memory: MemoryResponseStorage, disk: DiskResponseStorage?) {
        self.memory = memory
        self.disk = disk
    }

    func variants(for key: String) -> [StoredResponse] {
        let cached = memory.variants(for: key)
        if !cached.isEmpty { return cached }
        guard let disk else { return [] }
        let stored = disk.variants(for: key)
        if !stored.isEmpty { memory.setVariants(stored, for: key) }
        return stored
    }

    func setVariants(_ variants: [StoredResponse], for key: String) {
        memory.setVariants(variants, for: key)
        disk?.setVariants(variants, for: key)
    }

    func removeAll() {
        memory.removeAll()
        disk?.removeAll()
    }

    var memoryUsage: Int { memory.memoryUsage }
    var diskUsage: Int { disk?.diskUsage ?? 0 }
}
