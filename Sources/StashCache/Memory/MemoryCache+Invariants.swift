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
        var keys = 0
        for index in 0..<stripes.count {
            stripes.withStripe(at: index) { stripe in
                keys += stripe.table.count
                stripe.table.forEach { key, item in
                    if stripes.index(forHash: key.hashValue) != index { problems.append("a key is in stripe \(index), not its own") }
                    let slot = Int(item.slot)
                    guard slot < entries.count, entries[slot].key == key else {
                        problems.append("stripe \(index) points a key at slot \(slot), which holds another")
                        return
                    }
                    if entries[slot].hash != key.hashValue { problems.append("slot \(slot) keeps a wrong hash") }
                    if item.slides != (entries[slot].sliding > 0) { problems.append("slot \(slot) slides in one place only") }
                    let deadline = deadlines.deadline(of: slot)
                    if deadline < stripe.expiresNoEarlierThan {
                        problems.append("slot \(slot) expires at \(deadline), before its stripe's bound \(stripe.expiresNoEarlierThan)")
                    }
                }
            }
        }
        if keys != entries.count { problems.append("stripes \(keys) != entries \(entries.count)") }
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
