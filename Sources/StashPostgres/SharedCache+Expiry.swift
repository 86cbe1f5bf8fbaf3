import Logging
import PostgresNIO
import ServiceLifecycle
import StashCore

extension SharedCache {
    /// Removes expired entries and holds the limits every ``Configuration/expiryInterval``
    /// until the task is cancelled or a swift-service-lifecycle graceful shutdown begins.
    /// Run it in every instance (a PostgreSQL advisory lock lets one pass run at a time
    /// across the fleet).
    ///
    /// ```swift
    /// let group = ServiceGroup(services: [client, cache], logger: logger)
    /// try await group.run()
    /// ```
    ///
    /// Each pass removes, in batches of ``Configuration/expiryBatchSize``: expired entries,
    /// entries not written for ``Configuration/ageLimit``, then the entries written longest
    /// ago (as in Solid Cache) while the table holds more than
    /// ``Configuration/countLimit`` or ``Configuration/sizeLimit``
    /// (from 90% of a limit down to 80%). The order is kept to within a minute (an eighth of
    /// the maximum age when shorter): a write moves an entry to the newest end only when its
    /// place is older than that, so a hot entry that is rewritten (an HTTP response
    /// revalidated) is not among the first to go, while most rewrites leave the indexed
    /// order column alone and stay HOT updates. The size is counted exactly while the table holds under
    /// 20,000 rows and estimated above that (PostgreSQL's live-row count times the average
    /// size of the newest 1,000 rows), never summed over the whole table on a write.
    public func run() async throws {
        let interval = configuration.expiryInterval
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do { try await Task.sleep(for: interval) } catch { return }
                await self.expiryPass.run { _ = await self.removeExpired() }
            }
        }
    }

    /// Runs one expiry pass now and answers how many entries it removed (0 when another
    /// instance's pass was running, or PostgreSQL failed: the failure is logged and counted).
    ///
    /// ```swift
    /// let removed = await cache.removeExpired()
    /// ```
    @discardableResult
    public func removeExpired() async -> Int {
        let configuration = self.configuration
        let maximumAge = maximumAgeMilliseconds
        do {
            let removed = try await perform("an expiry pass", timeout: configuration.timeout * 10, transaction: true) { connection in
                try await Self.expiryPass(on: connection, configuration: configuration, maximumAge: maximumAge)
            }
            counters.recordExpired(removed)
            return removed
        } catch {
            counters.recordError()
            configuration.logger.warning("shared cache: expiry pass failed: \(String(reflecting: error))")
            return 0
        }
    }

    /// Counts bytes written by this instance; once they reach 2.5% of the byte limit, starts
    /// an expiry pass in the background (the write that crossed the line does not wait for
    /// it). A writer waits only when writes outrun the passes: 10% of the limit written since
    /// the running pass began; then it waits for that pass to end, at most
    /// ``Configuration/timeout`` (and not at all once cancelled).
    func noteWritten(_ bytes: Int) async {
        guard let maximumBytes = configuration.sizeLimit else { return }
        let step = max(1, maximumBytes / 40)
        let pending = pendingExpiry.withLock { pending -> Int in
            pending += bytes
            return pending
        }
        guard pending >= step else { return }
        let started = expiryPass.startInBackground {
            self.pendingExpiry.withLock { $0 = 0 }
            _ = await self.removeExpired()
        }
        if !started && pending >= 4 * step { await expiryPass.waitForRunningPass(atMost: configuration.timeout) }
    }

    private static func expiryPass(on connection: PostgresConnection, configuration: Configuration, maximumAge: Int64) async throws -> Int {
        let logger = configuration.logger
        var locked = false
        for try await granted in try await connection.query("SELECT pg_try_advisory_xact_lock(\(tableLockClass), hashtext(current_schema() || '.stash_cache.expiry'))", logger: logger).decode(Bool.self) {
            locked = granted
        }
        guard locked else { return 0 }
        let batch = max(1, configuration.expiryBatchSize)
        var removed = 0

        func delete(_ query: PostgresQuery) async throws -> (count: Int, bytes: Int) {
            var count = 0, bytes = 0
            for try await size in try await connection.query(query, logger: logger).decode(Int32.self) {
                count += 1
                bytes += Int(size)
            }
            removed += count
            return (count, bytes)
        }

        for _ in 0..<20 {
            let round = try await delete("""
                DELETE FROM stash_cache WHERE key_hash IN (SELECT key_hash FROM stash_cache
                    WHERE expires_at IS NOT NULL AND expires_at <= now() ORDER BY expires_at LIMIT \(batch) FOR UPDATE SKIP LOCKED)
                RETURNING byte_size
                """)
            if round.count < batch { break }
        }
        if maximumAge >= 0 {
            for _ in 0..<20 {
                let round = try await delete("""
                    DELETE FROM stash_cache WHERE key_hash IN (SELECT key_hash FROM stash_cache
                        WHERE created_at <= now() - make_interval(secs => \(maximumAge)::float8 / 1000)
                            AND written_at <= now() - make_interval(secs => \(maximumAge)::float8 / 1000)
                        ORDER BY created_at LIMIT \(batch) FOR UPDATE SKIP LOCKED)
                    RETURNING byte_size
                    """)
                if round.count < batch { break }
            }
        }
        guard configuration.sizeLimit != nil || configuration.countLimit != nil else { return removed }
        var (entries, bytes) = try await measure(connection, logger: logger)
        let byteLimit = configuration.sizeLimit ?? .max
        let entryLimit = configuration.countLimit ?? .max
        // Trimming starts at 90% of a limit, so that writes landing while a pass runs (each
        // instance's writers add at most 10% of the byte limit before they wait for it) stay
        // near the limit under load; it goes down to 80%.
        // (90% and 80% as `limit - limit / 10` and `limit - limit / 5`: exact for small limits,
        // where `limit / 20 * 18` would be 0, and no overflow for large ones.)
        let byteTrigger = byteLimit == .max ? .max : byteLimit - byteLimit / 10
        let entryTrigger = entryLimit == .max ? .max : entryLimit - entryLimit / 10
        guard bytes > byteTrigger || entries > entryTrigger else { return removed }
        let byteTarget = byteLimit == .max ? .max : byteLimit - byteLimit / 5
        let entryTarget = entryLimit == .max ? .max : entryLimit - entryLimit / 5
        for _ in 0..<200 where bytes > byteTarget || entries > entryTarget {
            let average = max(1, bytes / max(1, entries))
            let excess = max(bytes > byteTarget ? (bytes - byteTarget) / average + 1 : 0, entries > entryTarget ? entries - entryTarget : 0)
            let round = try await delete("""
                DELETE FROM stash_cache WHERE key_hash IN (SELECT key_hash FROM stash_cache
                    ORDER BY created_at LIMIT \(min(batch, max(1, excess))) FOR UPDATE SKIP LOCKED)
                RETURNING byte_size
                """)
            if round.count == 0 { break }
            entries -= round.count
            bytes -= round.bytes
        }
        return removed
    }

    /// The table's entries and value bytes: exact under 20,000 live rows, estimated above.
    private static func measure(_ connection: PostgresConnection, logger: Logger) async throws -> (entries: Int, bytes: Int) {
        var liveRows: Int64 = 0
        for try await count in try await connection.query(
            "SELECT n_live_tup FROM pg_stat_user_tables WHERE relid = 'stash_cache'::regclass", logger: logger
        ).decode(Int64.self) {
            liveRows = count
        }
        let exact = liveRows < 20_000
        let query: PostgresQuery = exact
            ? "SELECT count(*)::int8, coalesce(sum(byte_size), 0)::int8 FROM stash_cache"
            : "SELECT count(*)::int8, coalesce(sum(byte_size), 0)::int8 FROM (SELECT byte_size FROM stash_cache ORDER BY created_at DESC LIMIT 1000) AS newest"
        var counted: (Int64, Int64) = (0, 0)
        for try await row in try await connection.query(query, logger: logger).decode((Int64, Int64).self) { counted = row }
        if exact { return (Int(counted.0), Int(counted.1)) }
        let average = counted.0 == 0 ? 0 : Double(counted.1) / Double(counted.0)
        return (Int(liveRows), Int(Double(liveRows) * average))
    }
}

/// Lets one expiry pass of an instance run at a time; callers that arrive during a pass wait
/// for it to end instead of starting another.
final class ExpiryPass: Sendable {
    private struct State {
        var running = false
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter: UInt64 = 0
    }
    private let state = LockedValue(State())

    /// Runs `pass` now, or waits for the pass that is running to end.
    func run(_ pass: @escaping @Sendable () async -> Void) async {
        if claim() {
            await pass()
            release()
        } else {
            await waitForRunningPass()
        }
    }

    /// Starts `pass` in a task of its own unless a pass is running; true when it started.
    func startInBackground(_ pass: @escaping @Sendable () async -> Void) -> Bool {
        guard claim() else { return false }
        Task {
            await pass()
            self.release()
        }
        return true
    }

    /// Waits until no pass is running (at once when none is), for at most `limit` when one
    /// is given; a cancelled caller stops waiting at once.
    func waitForRunningPass(atMost limit: Duration? = nil) async {
        let id = state.withLock { state -> UInt64 in
            defer { state.nextWaiter &+= 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state -> Bool in
                    guard state.running, !Task.isCancelled else { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow {
                    continuation.resume()
                } else if let limit {
                    Task {
                        try? await Task.sleep(for: limit)
                        self.stopWaiting(id)
                    }
                }
            }
        } onCancel: {
            stopWaiting(id)
        }
    }

    /// Resumes waiter `id` unless the pass's end already did.
    private func stopWaiting(_ id: UInt64) {
        state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
    }

    private func claim() -> Bool {
        state.withLock { state -> Bool in
            if state.running { return false }
            state.running = true
            return true
        }
    }

    private func release() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.running = false
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }
}
