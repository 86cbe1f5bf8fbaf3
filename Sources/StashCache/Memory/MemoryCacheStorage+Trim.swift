extension MemoryCacheStorage {
    /// Drops least recently used entries until at most `count` remain.
    @usableFromInline
    mutating func trim(toCount count: Int, reason: EvictionReason) {
        while entries.count > max(0, count) { evictLeastRecentlyUsed(reason) }
    }

    /// Drops least recently used entries until the total cost is at most `cost`.
    @usableFromInline
    mutating func trim(toCost cost: Int, reason: EvictionReason) {
        while totalCost > max(0, cost), oldest >= 0 { evictLeastRecentlyUsed(reason) }
    }

    /// Drops every entry written `age` seconds ago or earlier.
    @usableFromInline
    mutating func trim(toAge age: Double, now: Double) {
        removeExpired(now: now)
        // Walking down from the last slot: a removal moves the last entry into the hole, and
        // that entry was already looked at.
        var slot = entries.count - 1
        while slot >= 0 {
            if !(entries[slot].written + age > now) { evict(slot, .trimmed) }
            slot -= 1
        }
    }

    /// Drops expired entries, then the least recently used until at most `fraction` of the
    /// count and of the total cost remain, and gives spare capacity back to the system.
    @usableFromInline
    mutating func purge(keeping fraction: Double, now: Double) {
        removeExpired(now: now)
        let fraction = fraction.isNaN ? 0 : min(1, max(0, fraction))
        let count = Int(Double(entries.count) * fraction)
        let cost = Int(Double(totalCost) * fraction)
        trim(toCount: count, reason: .purged)
        trim(toCost: cost, reason: .purged)
        compact()
    }

    /// Removes every entry, reporting each with `reason`.
    @usableFromInline
    mutating func removeAll(reason: EvictionReason) {
        var evicted = pending
        pending = []
        if reportsEvictions { evicted.reserveCapacity(evicted.count + entries.count) }
        for index in 0..<stripes.count {
            stripes.withStripe(at: index) { stripe in
                if reportsEvictions {
                    stripe.table.forEach { key, item in evicted.append(Evicted(key: key, value: item.value, reason: reason)) }
                }
                stripe.table.removeAll()
                stripe.expiresNoEarlierThan = .infinity
            }
        }
        pending = evicted
        entries = []
        deadlines.removeAll()
        newest = -1
        oldest = -1
        totalCost = 0
    }

    /// Reallocates the storage to its current size after a large removal.
    @usableFromInline
    mutating func compact() {
        guard entries.capacity > 2 * entries.count + 16 else { return }
        entries = ContiguousArray(entries[...])
        for index in 0..<stripes.count { stripes.withStripe(at: index) { $0.table.compact() } }
        deadlines.shrink(to: entries.count)
    }
}
