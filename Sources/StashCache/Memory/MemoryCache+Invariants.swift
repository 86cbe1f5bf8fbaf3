import StashCore
extension MemoryCache {
    /// The broken internal invariants, empty when the cache is sound. Compiled in every
    /// configuration (it costs nothing until called); tests call it after hammering a cache.
    package func checkInvariants() -> [String] {
        state.withLock { $0.invariantViolations() }
    }
}

extension MemoryCacheStorage {
    func invariantViolations() -> [String] {
        var problems: [String] = []
        if slots.count != entries.count { problems.append("map \(slots.count) != entries \(entries.count)") }
        for (slot, entry) in entries.enumerated() where slots[entry.key].map({ Int($0.slot) }) != slot {
            problems.append("slot \(slot) is not where the map points")
        }
        var walked = 0
        var previous = -1
        var slot = newest
        while slot >= 0, walked <= entries.count {
            if entries[slot].newer != previous { problems.append("slot \(slot) has a wrong newer link") }
            previous = slot
            slot = entries[slot].older
            walked += 1
        }
        if walked != entries.count { problems.append("recency list has \(walked) entries, storage \(entries.count)") }
        if previous != oldest { problems.append("oldest is \(oldest), list ends at \(previous)") }
        let cost = entries.reduce(0) { $0 + $1.cost }
        if cost != totalCost { problems.append("total cost \(totalCost) != sum \(cost)") }
        if entries.count > countLimit { problems.append("count \(entries.count) over limit \(countLimit)") }
        if totalCost > costLimit { problems.append("cost \(totalCost) over limit \(costLimit)") }
        if !deadlines.isValid() { problems.append("deadline heap is broken") }
        if deadlines.positions.count > entries.count,
           deadlines.positions[entries.count...].contains(where: { $0 >= 0 }) {
            problems.append("deadline heap refers to a removed slot")
        }
        return problems
    }
}
