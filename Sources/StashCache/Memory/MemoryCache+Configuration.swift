public import Foundation

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
    ///     maxAge: 3600,
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
        public var maxAge: TimeInterval?
        /// The expiry of an entry written without one.
        public var defaultExpiry: Expiry
        /// The cost of an entry written without one; `nil` means cost 0. Runs outside the
        /// cache's lock.
        public var cost: CostFunction?
        /// Called for every evicted entry, after the cache's lock is released, on the thread
        /// whose call caused the eviction. It may call back into the cache.
        public var onEvict: EvictionHandler?

        /// Creates a configuration; every parameter is optional.
        public init(
            countLimit: Int? = nil,
            costLimit: Int? = nil,
            maxAge: TimeInterval? = nil,
            defaultExpiry: Expiry = .never,
            cost: CostFunction? = nil,
            onEvict: EvictionHandler? = nil
        ) {
            self.countLimit = countLimit
            self.costLimit = costLimit
            self.maxAge = maxAge
            self.defaultExpiry = defaultExpiry
            self.cost = cost
            self.onEvict = onEvict
        }
    }
}
