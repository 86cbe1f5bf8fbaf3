public import StashCore

extension StashError.Code {
    /// The shared cache's PostgreSQL server could not answer in time: unreachable, down, slow
    /// past ``SharedCache/Configuration/timeout``, or it refused the statement. Thrown only by
    /// a ``SharedCache`` whose ``SharedCache/FailurePolicy`` is `.strict` (and by
    /// `increment`, `migrate` and `create`, which have no honest answer without the server).
    ///
    /// ```swift
    /// do {
    ///     try await cache.set(data, forKey: "k")
    /// } catch StashError.Code.unavailable {
    ///     // the value was not stored
    /// }
    /// ```
    public static let unavailable = Self(rawValue: "unavailable")

    /// A value is larger than the store accepts (``SharedCache/Configuration/maximumValueBytes``).
    /// Nothing was written.
    ///
    /// ```swift
    /// do { try await cache.set(hugeData, forKey: "k") } catch StashError.Code.valueTooLarge { … }
    /// ```
    public static let valueTooLarge = Self(rawValue: "value too large")
}
