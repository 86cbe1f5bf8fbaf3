public import Foundation
public import StashCore

extension MemoryCache {
    /// Computes the cost of an entry when `set` is not given one.
    public typealias CostFunction = @Sendable (Key, Value) -> Int

    /// Told about every entry the cache drops on its own, after its lock is released.
    public typealias EvictionHandler = @Sendable (Key, Value, EvictionReason) -> Void

    /// The limits and hooks of a ``MemoryCache``, fixed when it is created.
    ///
    /// Every limit is optional; a cache with none grows until `removeAll()` or `purge()`.
    ///
    /// ```swift
    /// let images = MemoryCache<URL, Data>(configuration: .init(
    ///     countLimit: 500,
    ///     costLimit: 50 * 1024 * 1024,
    ///     ageLimit: 3600,
    ///     cost: { _, data in data.count },
    ///     onEvict: { url, _, reason in log.debug("dropped \(url): \(reason)") }
    /// ))
    /// ```
    public struct Configuration: Sendable {
        /// The most entries kept; `nil` for no limit.
        public var countLimit: Int?
        /// The most total cost kept; `nil` for no limit. An entry costlier than the limit on
        /// its own is dropped as soon as it is written.
        public var costLimit: Int?
        /// Seconds after its write at which an entry expires, whatever its own expiry says;
        /// `nil` for no maximum. Sliding expiry never extends an entry beyond it.
        public var ageLimit: TimeInterval?
        /// The expiry of an entry written without one.
        public var defaultExpiry: ExpiryPolicy
        /// The cost of an entry written without one; `nil` means cost 0. Runs outside the
        /// cache's lock.
        public var cost: CostFunction?
        /// Called for every evicted entry, after the cache's lock is released, on the thread
        /// whose call caused the eviction. It may call back into the cache.
        public var onEvict: EvictionHandler?
        /// Where expiry and age read the time; tests pass a `ManualClock`.
        public var clock: any StashClock

        /// Creates a configuration; every parameter is optional.
        public init(
            countLimit: Int? = nil,
            costLimit: Int? = nil,
            ageLimit: TimeInterval? = nil,
            defaultExpiry: ExpiryPolicy = .never,
            cost: CostFunction? = nil,
            onEvict: EvictionHandler? = nil,
            clock: any StashClock = SystemClock()
        ) {
            self.countLimit = countLimit
            self.costLimit = costLimit
            self.ageLimit = ageLimit
            self.defaultExpiry = defaultExpiry
            self.cost = cost
            self.onEvict = onEvict
            self.clock = clock
        }
    }
}
