import Foundation
import Logging
import NIOCore
public import PostgresNIO
import StashCore

/// A cache that several processes share: one PostgreSQL table that every instance of an app
/// (or of `stash http-proxy`) behind a load balancer reads and writes, so the origin computes
/// each hot value once for the whole fleet. After Rails' Solid Cache.
///
/// ```swift
/// let client = PostgresClient(configuration: try SharedCache.clientConfiguration(url: "postgres://app@db/app"))
/// let cache = SharedCache(client: client)
/// try await withThrowingDiscardingTaskGroup { group in
///     group.addTask { await client.run() }   // the connection pool
///     group.addTask { try await cache.run() } // background expiry
///     try await cache.migrate()
///     try await cache.set(Data("hello".utf8), forKey: "greeting", expiry: .after(60))
///     let greeting = try await cache.value(forKey: "greeting") // Data("hello") on every instance
///     group.cancelAll()
/// }
/// ```
///
/// The table keeps a 64-bit key hash (the first 8 bytes of SHA-256, uniquely indexed), the
/// full key (compared on every read), the value bytes, their size, the time written and a
/// per-key expiry. Keys follow Swift's `==` (they are stored in NFC) and are never put in SQL
/// text. Limits (``Configuration/maximumBytes``, ``Configuration/maximumEntries``,
/// ``Configuration/maximumAge``) are held by ``run()`` in small batches, oldest first.
///
/// Reads and plain writes that callers start at the same time share statements: while a
/// write (or two reads) is in flight, the next ones wait and go together as one (group
/// commit on the client),
/// so a busy server instance makes a few round trips where it would make one per call. A
/// caller alone pays one round trip, and every call still returns only once its own value
/// is read or committed.
///
/// When PostgreSQL is down or slower than ``Configuration/timeout``, reads answer `nil` and
/// writes are dropped (logged and counted), unless the policy is ``FailurePolicy/strict``.
/// `SharedCache` is a swift-service-lifecycle `Service` and a Hummingbird `PersistDriver`.
public final class SharedCache: Sendable {
    /// The connection pool; its owner runs it (`client.run()`).
    public let client: PostgresClient
    /// The limits and policies this cache was made with.
    public let configuration: Configuration

    let counters: SharedCacheCounters
    let pendingExpiry = LockedValue(0)
    let expiryPass = ExpiryPass()
    let inFlight = LockedValue([String: Task<Data, any Error>]())
    let lastFailureLog = LockedValue(ContinuousClock.Instant.now - .seconds(60))
    let deadlines: DeadlineWatcher
    /// Reads started at the same time, sent as one statement.
    let reads = StatementBatcher<SharedCacheKey, ByteBuffer?>(maximumRunning: 2, maximumBatch: 64, maximumBytes: .max)
    /// Plain writes started at the same time, sent as one statement.
    let writes = StatementBatcher<SharedCacheSetMany.Entry, Void>(maximumRunning: 1, maximumBatch: 64, maximumBytes: 1 << 20)
    /// The most reads and plain writes sent in one statement so far (for tests).
    package var largestBatches: (reads: Int, writes: Int) { (reads.largestBatch, writes.largestBatch) }
    /// The logger statements are sent with: postgres-nio logs every statement at debug
    /// level, which would drown an app's own debug logs (failures are logged by the cache).
    static let statementLogger = Logger(label: "stash.shared-cache.statements", factory: { _ in SwiftLogNoOpLogHandler() })

    /// A cache on the `stash_cache` table of `client`'s database. Call ``migrate()`` once
    /// (any instance, any number of times) before the first use, and ``run()`` for expiry.
    ///
    /// ```swift
    /// let cache = SharedCache(client: client, configuration: .init())
    /// ```
    public init(client: PostgresClient, configuration: Configuration = Configuration()) {
        self.client = client
        self.configuration = configuration
        self.counters = SharedCacheCounters(name: configuration.metricsName)
        self.deadlines = DeadlineWatcher(timeout: configuration.timeout)
    }

    /// How long a rewritten entry keeps its place in the expiry order before a write moves
    /// it to the newest end, in milliseconds: a minute, or an eighth of the maximum age when
    /// that is shorter (so that the age rule meets few entries it may not remove yet).
    var orderRefreshMilliseconds: Int64 {
        max(1, min(60_000, configuration.maximumAge.map { $0.milliseconds / 8 } ?? 60_000))
    }

    /// The maximum age in milliseconds as the statements take it (-1: none).
    var maximumAgeMilliseconds: Int64 {
        configuration.maximumAge?.milliseconds ?? -1
    }

    /// Runs one PostgreSQL operation under the timeout, on a connection leased for it and on
    /// that connection's event loop (``EventLoopExecutor``).
    /// `what` names the operation in errors, and is only evaluated for one; `key`, when the
    /// operation has one, is in every error it throws (a timeout, a lost connection).
    func perform<T: Sendable>(
        _ what: @escaping @autoclosure @Sendable () -> String, key: String? = nil, timeout: Duration? = nil,
        _ operation: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        do {
            let client = self.client
            return try await deadlines.run(timeout ?? configuration.timeout, what()) {
                try await client.onConnectionLoop(operation)
            }
        } catch var error as StashError {
            if error.key == nil { error.key = key }
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw StashError(.unavailable, "\(what()): \(String(reflecting: error))", key: key)
        }
    }

    /// Applies the failure policy to a failed operation: throws it (strict, or bad input) or
    /// counts and logs it and answers `fallback`.
    func absorb<T>(_ error: any Error, _ what: String, fallback: T) throws -> T {
        guard let stashError = error as? StashError, stashError.code == .unavailable else { throw error }
        counters.recordError()
        if configuration.failurePolicy == .strict { throw error }
        let now = ContinuousClock.Instant.now
        let shouldLog = lastFailureLog.withLock { last -> Bool in
            guard now - last >= .seconds(1) else { return false }
            last = now
            return true
        }
        if shouldLog {
            configuration.logger.warning("shared cache: \(what) failed, answering as a miss (lenient policy): \(stashError.reason)")
        }
        return fallback
    }
}

extension Duration {
    /// Milliseconds, as the statements take a time to live.
    var milliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}
