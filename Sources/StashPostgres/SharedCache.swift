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
/// text. Limits (``Configuration/sizeLimit``, ``Configuration/countLimit``,
/// ``Configuration/ageLimit``) are held by ``run()`` in small batches, oldest first.
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
/// The server is told the timeout too (`statement_timeout`, `lock_timeout`), and a statement
/// the caller gave up on is cancelled there; a write sent but not answered throws
/// `StashError(.mayHaveBeenApplied)` rather than `.unavailable` (strict policy).
/// `SharedCache` is a swift-service-lifecycle `Service`; `StashPostgresHummingbird` makes it a
/// Hummingbird `PersistDriver`, `StashPostgresHTTP` the shared storage of an `HTTPCache`.
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
        max(1, min(60_000, configuration.ageLimit.map { $0.milliseconds / 8 } ?? 60_000))
    }

    /// The maximum age in milliseconds as the statements take it (-1: none).
    var maximumAgeMilliseconds: Int64 {
        configuration.ageLimit?.milliseconds ?? -1
    }

    /// Runs one PostgreSQL operation under the timeout, on a connection leased for it and on
    /// that connection's event loop (``EventLoopExecutor``), with the server's own timeouts
    /// set a little shorter (``ServerTimeouts``): for the session, or with `transaction` (or
    /// a timeout other than the cache's) for one transaction around `operation`.
    /// `what` names the operation in errors, and is only evaluated for one; `key`, when the
    /// operation has one, is in every error it throws (a timeout, a lost connection).
    ///
    /// When the caller's timeout passes with a statement in flight, the statement is
    /// cancelled on the server (``ServerStatement``). A `writes` operation whose outcome is
    /// unknown then (timed out or lost its connection after its statement was sent, without
    /// the server's answer) throws `StashError(.mayHaveBeenApplied)`, never `.unavailable`,
    /// which says the write was not applied.
    func perform<T: Sendable>(
        _ what: @escaping @autoclosure @Sendable () -> String, key: String? = nil, timeout: Duration? = nil,
        writes: Bool = false, transaction: Bool = false,
        _ operation: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let timeout = timeout ?? configuration.timeout
        let inTransaction = transaction || timeout != configuration.timeout
        let milliseconds = configuration.serverTimeout.map { max(1, $0.milliseconds) } ?? ServerTimeouts.milliseconds(for: timeout)
        let statement = ServerStatement()
        let client = self.client
        do {
            // A statement in flight is cancelled on the server, and its task left to receive
            // the server's answer (which releases the connection cleanly); an operation still
            // waiting for a connection is cancelled here.
            let expired: @Sendable () -> (error: any Error, cancels: Bool) = {
                let inFlight = statement.abandon { backend in await self.cancelOnServer(backend, within: .milliseconds(milliseconds)) }
                guard writes, inFlight else { return (StashError(.unavailable, "\(what()) timed out after \(timeout)", key: key), !inFlight) }
                let error = StashError(
                    .mayHaveBeenApplied, "\(what()) timed out after \(timeout) once sent: it may have been applied, or may still be", key: key
                )
                return (error, false)
            }
            return try await deadlines.run(timeout, expired: expired) {
                try await client.onConnectionLoop { connection in
                    if inTransaction {
                        return try await connection.withTransaction(logger: Self.statementLogger) { connection in
                            let backend = try await ServerTimeouts.transaction(connection, milliseconds: milliseconds)
                            return try await Self.run(operation, on: connection, backend: backend, statement: statement)
                        }
                    }
                    let backend = try await ServerTimeouts.session(connection, milliseconds: milliseconds)
                    return try await Self.run(operation, on: connection, backend: backend, statement: statement)
                }
            }
        } catch var error as StashError {
            if error.key == nil { error.key = key }
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            var underlying = error
            if let transactionError = error as? PostgresTransactionError, let closureError = transactionError.closureError {
                if var stashError = closureError as? StashError {
                    if stashError.key == nil { stashError.key = key }
                    throw stashError
                }
                if closureError is CancellationError { throw CancellationError() }
                underlying = closureError
            } else if let commitError = (error as? PostgresTransactionError)?.commitError {
                underlying = commitError
            }
            let answered = (underlying as? PSQLError)?.code == .server
            if writes, statement.began, !answered {
                throw StashError(
                    .mayHaveBeenApplied, "\(what()) lost its connection once sent: it may have been applied: \(String(reflecting: underlying))", key: key
                )
            }
            throw StashError(.unavailable, "\(what()): \(String(reflecting: underlying))", key: key)
        }
    }

    /// Runs `operation` on `connection` between ``ServerStatement/begin(backend:)`` and
    /// ``ServerStatement/end()``; nothing is sent when the caller already gave up.
    private static func run<T: Sendable>(
        _ operation: @Sendable (PostgresConnection) async throws -> T, on connection: PostgresConnection, backend: Int32,
        statement: ServerStatement
    ) async throws -> T {
        guard statement.begin(backend: backend) else { throw CancellationError() }
        let result: Result<T, any Error>
        do { result = .success(try await operation(connection)) } catch { result = .failure(error) }
        await statement.end()
        return try result.get()
    }

    /// Cancels the statement running on backend `pid` (`pg_cancel_backend`, over another
    /// connection of the pool), trying for at most `limit` (until the server's own timeout
    /// would end the statement anyway, and no less than the cache's timeout): on a busy
    /// machine, opening the connection that carries the cancel can take longer than the
    /// operation's timeout. A failure is dropped (the server's own timeout still ends the
    /// statement).
    func cancelOnServer(_ pid: Int32, within limit: Duration) async {
        let client = self.client
        _ = try? await deadlines.run(max(limit, configuration.timeout), expired: { (StashError(.unavailable, "cancelling backend \(pid) timed out"), true) }) {
            try await client.withConnection { connection in
                try await connection.query("SELECT pg_cancel_backend(\(pid))", logger: Self.statementLogger).drain()
            }
        }
    }

    /// Applies the failure policy to a failed operation: throws it (strict, or bad input) or
    /// counts and logs it and answers `fallback`.
    func absorb<T>(_ error: any Error, _ what: String, fallback: T) throws -> T {
        guard let stashError = error as? StashError, stashError.code == .unavailable || stashError.code == .mayHaveBeenApplied else { throw error }
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
