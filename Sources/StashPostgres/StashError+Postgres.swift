public import StashCore

extension StashError.Code {
    /// The shared cache's PostgreSQL server could not answer in time: unreachable, down, slow
    /// past ``SharedCache/Configuration/timeout``, or it refused the statement. Thrown only by
    /// a ``SharedCache`` whose ``SharedCache/FailurePolicy`` is `.strict` (and by
    /// `increment`, `migrate` and `create`, which have no honest answer without the server).
    ///
    /// A write that throws it was not applied; a write whose outcome is unknown throws
    /// ``mayHaveBeenApplied`` instead.
    ///
    /// ```swift
    /// do {
    ///     try await cache.set(data, forKey: "k")
    /// } catch StashError.Code.unavailable {
    ///     // the value was not stored
    /// }
    /// ```
    public static let unavailable = Self(rawValue: "unavailable")

    /// A write to the shared cache's PostgreSQL server was sent, but its answer did not
    /// arrive: it timed out (past ``SharedCache/Configuration/timeout``) or lost its
    /// connection. It may have been applied, or may still be: the cache asks the server to
    /// cancel it and the server's own `statement_timeout` ends it within the timeout, but a
    /// commit the server already made stands. Thrown where ``unavailable`` would be (a
    /// `.strict` cache, `increment`, `create`), and counted and dropped like it by a lenient
    /// cache. Read the key again rather than assume either outcome.
    ///
    /// ```swift
    /// do {
    ///     try await cache.increment("rate/203.0.113.9")
    /// } catch StashError.Code.mayHaveBeenApplied {
    ///     // the counter may have moved: read it before counting again
    /// }
    /// ```
    public static let mayHaveBeenApplied = Self(rawValue: "may have been applied")

    /// A value is larger than the store accepts (``SharedCache/Configuration/valueSizeLimit``).
    /// Nothing was written.
    ///
    /// ```swift
    /// do { try await cache.set(hugeData, forKey: "k") } catch StashError.Code.valueTooLarge { … }
    /// ```
    public static let valueTooLarge = Self(rawValue: "value too large")
}
