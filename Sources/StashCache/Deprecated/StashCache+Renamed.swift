public import Foundation
public import StashCore

// The names of 0.1.0's API review (docs/API.md) that README examples used before it. They
// forward to the new names and go away in a later release; nothing in Stash calls them.

extension ExpiringPool {
    /// Renamed ``init(countLimit:defaultExpiry:clock:)``: limits are `…Limit` everywhere.
    @available(*, deprecated, renamed: "init(countLimit:defaultExpiry:clock:)")
    public convenience init(capacity: Int, expiry: ExpiryPolicy, clock: any StashClock = SystemClock()) {
        self.init(countLimit: capacity, defaultExpiry: expiry, clock: clock)
    }
}

extension ExpiringPool where Key: Codable, Value: Codable {
    /// Renamed ``init(contentsOf:countLimit:defaultExpiry:clock:)``.
    @available(*, deprecated, renamed: "init(contentsOf:countLimit:defaultExpiry:clock:)")
    public convenience init(contentsOf url: URL, capacity: Int, expiry: ExpiryPolicy, clock: any StashClock = SystemClock()) throws {
        try self.init(contentsOf: url, countLimit: capacity, defaultExpiry: expiry, clock: clock)
    }
}

extension BoundedQueue {
    /// Renamed ``init(countLimit:ageLimit:clock:)``.
    @available(*, deprecated, renamed: "init(countLimit:ageLimit:clock:)")
    public convenience init(capacity: Int, maxAge: TimeInterval? = nil, clock: any StashClock = SystemClock()) {
        self.init(countLimit: capacity, ageLimit: maxAge, clock: clock)
    }
}

extension BoundedQueue where Element: Codable {
    /// Renamed ``init(contentsOf:countLimit:ageLimit:clock:)``.
    @available(*, deprecated, renamed: "init(contentsOf:countLimit:ageLimit:clock:)")
    public convenience init(contentsOf url: URL, capacity: Int, maxAge: TimeInterval? = nil, clock: any StashClock = SystemClock()) throws {
        try self.init(contentsOf: url, countLimit: capacity, ageLimit: maxAge, clock: clock)
    }
}

extension CacheStore {
    /// Renamed ``removeAll(in:)``: removal is `remove…` in every store.
    @available(*, deprecated, renamed: "removeAll(in:)")
    @discardableResult
    public func clear(_ scope: CacheScope) async throws -> Int {
        try await removeAll(in: scope)
    }
}
