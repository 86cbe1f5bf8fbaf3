public import Logging

extension SharedCache {
    /// What a ``SharedCache`` does when PostgreSQL is unreachable, slow or refuses a statement.
    ///
    /// ```swift
    /// var configuration = SharedCache.Configuration()
    /// configuration.failurePolicy = .strict   // writes throw StashError(.unavailable)
    /// ```
    public enum FailurePolicy: Sendable, Hashable {
        /// Reads answer "miss", writes and removals are dropped; each failure is counted in
        /// ``SharedCache/Statistics/errors`` and logged (at most once a second) at warning
        /// level. A cache must not take the app down. The default.
        case lenient
        /// Reads, writes and removals throw `StashError(.unavailable)`.
        case strict
    }

    /// The limits, table options and failure policy of a ``SharedCache``.
    ///
    /// ```swift
    /// var configuration = SharedCache.Configuration()
    /// configuration.sizeLimit = 512 * 1024 * 1024
    /// configuration.ageLimit = .seconds(7 * 24 * 3600)
    /// configuration.timeout = .milliseconds(250)
    /// let cache = SharedCache(client: client, configuration: configuration)
    /// ```
    ///
    /// The table is named `stash_cache` and lives in the first schema of the connection's
    /// `search_path`: give two caches of one database two schemas
    /// (`options.additionalStartupParameters = [("search_path", "sessions")]` on the
    /// `PostgresClient.Configuration`).
    public struct Configuration: Sendable {
        /// The total size of the values the table keeps, in bytes (`nil`: no limit). Expiry
        /// removes the oldest entries when the estimated total goes over it. Default 256 MB.
        public var sizeLimit: Int? = 256 * 1024 * 1024
        /// The number of entries the table keeps (`nil`: no limit, the default).
        public var countLimit: Int?
        /// How long an entry lives after it was written, whatever its own expiry (`nil`: no
        /// limit, the default).
        public var ageLimit: Duration?
        /// The largest value accepted, in bytes; larger ones are refused with
        /// `StashError(.valueTooLarge)`. Default 64 MB.
        public var valueSizeLimit: Int = 64 * 1024 * 1024
        /// How long one operation may take before it counts as a failure. Default 1 s. The
        /// server is told too (`statement_timeout` and `lock_timeout`, shorter by a tenth,
        /// at least 0.25 s and at most half, for the answer to come back in time), and
        /// a statement the caller gave up on is cancelled there, so an abandoned write
        /// does not commit later over a newer value.
        public var timeout: Duration = .seconds(1)
        /// The server's `statement_timeout` and `lock_timeout` instead of the operation's
        /// timeout less its margin (`nil`, the default): for tests of the cancellation of a
        /// statement the server would otherwise end itself.
        package var serverTimeout: Duration?
        /// What happens when PostgreSQL fails. Default ``FailurePolicy/lenient``.
        public var failurePolicy: FailurePolicy = .lenient
        /// Whether ``SharedCache/migrate()`` creates the table `UNLOGGED`: writes skip
        /// PostgreSQL's write-ahead log (faster), but the table is emptied after a server
        /// crash and is not replicated to standbys. Default `false`. Only read when the table
        /// is created.
        public var unlogged: Bool = false
        /// How often ``SharedCache/run()`` removes expired entries and holds the limits.
        /// Writes through this instance also start a pass, in the background, once they
        /// added 2.5% of ``sizeLimit`` (a writer waits for a pass only when writes outrun it
        /// by 10% of the limit). Default 1 s.
        public var expiryInterval: Duration = .seconds(1)
        /// The most rows one expiry statement removes. Default 500.
        public var expiryBatchSize: Int = 500
        /// Where failures and expiry passes are logged.
        public var logger: Logger = Logger(label: "stash.shared-cache")
        /// The `cache` dimension of the swift-metrics counters (`stash_shared_cache_hits`, …).
        public var metricsName: String = "stash_cache"

        /// The defaults: 256 MB, no entry or age limit, 64 MB values, 1 s timeout, lenient.
        public init() {}
    }
}
