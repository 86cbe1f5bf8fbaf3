import StashCore

/// The memory tier: decoded variants by key, bounded by a byte capacity, least recently used
/// evicted first. Thread-safe; nothing survives the process.
final class MemoryResponseStorage: ResponseStorage {
    private struct Entry {
        var variants: [StoredResponse]
        var cost: Int
        var lastUse: UInt64
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var totalCost = 0
        var tick: UInt64 = 0
    }

    let capacity: Int
    private let state = LockedValue(State())

    init(capacity: Int) { self.capacity = max(0, capacity) }

    func variants(for key: String) -> [StoredResponse] {
        state.withLock { state in
            guard var entry = state.entries[key] else { return [] }
            state.tick += 1
            entry.lastUse = state.tick
            state.entries[key] = entry
            return entry.variants
        }
    }

    func setVariants(_ variants: [StoredResponse], for key: String) {
        let cost = variants.reduce(key.utf8.count) { $0 + $1.cost }
        state.withLock { state in
            if let old = state.entries.removeValue(forKey: key) { state.totalCost -= old.cost }
            guard !variants.isEmpty, cost <= capacity else { return }
            state.tick += 1
            state.entries[key] = Entry(variants: variants, cost: cost, lastUse: state.tick)
            state.totalCost += cost
            if state.totalCost > capacity { Self.evict(&state, downTo: capacity - capacity / 10) }
        }
    }

    func removeAll() { state.withLock { $0 = State() } }
    func flush() {}
    func close() {}

    var memoryUsage: Int { state.withLock { $0.totalCost } }
    var diskUsage: Int { 0 }

    /// Evicts in one batch down to `target`, so a full cache does not sort on every write.
    private static func evict(_ state: inout State, downTo target: Int) {
        let oldestFirst = state.entries.sorted { $0.value.lastUse < $1.value.lastUse }
        for (key, entry) in oldestFirst where state.totalCost > target {
            state.entries[key] = nil
            state.totalCost -= entry.cost
        }
    }
}
