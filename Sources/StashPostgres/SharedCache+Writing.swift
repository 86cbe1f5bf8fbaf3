public import Foundation
import NIOCore
import PostgresNIO
public import StashCache
public import StashCore

extension SharedCache {
    /// Stores `value` for `key`, replacing any other value, for every instance on the table.
    ///
    /// ```swift
    /// try await cache.set(Data(html.utf8), forKey: "page/home", expiry: .after(30))
    /// ```
    ///
    /// - parameters:
    ///   - value: the bytes, at most ``Configuration/valueSizeLimit``.
    ///   - key: the key: 1 to 1024 bytes of UTF-8 without NUL.
    ///   - expiry: `.never` (the default; ``Configuration/ageLimit`` still applies),
    ///     `.after(seconds)` or `.at(date)`, counted on the server's clock.
    /// - throws: `StashError(.invalidKey)`, `StashError(.valueTooLarge)`,
    ///   `StashError(.unsupportedValue)` for `.sliding` (a shared cache does not rewrite
    ///   entries on reads); `StashError(.unavailable)` (not stored) or
    ///   `StashError(.mayHaveBeenApplied)` (sent, unanswered: it may have been stored) when
    ///   PostgreSQL fails and the policy is `.strict` (lenient: the write is dropped, logged
    ///   and counted).
    public func set(_ value: Data, forKey key: String, expiry: ExpiryPolicy = .never) async throws {
        try await store(value, forKey: try SharedCacheKey(key), timeToLive: try Self.timeToLive(expiry), keepTimeToLive: false)
    }

    /// Stores `value` encoded by `codec`.
    ///
    /// ```swift
    /// try await cache.set(profile, forKey: "profile/42", codec: .json(Profile.self), expiry: .after(300))
    /// ```
    ///
    /// - throws: the codec's error (nothing is written); as ``set(_:forKey:expiry:)``.
    public func set<Codec: CacheCodec>(_ value: Codec.Value, forKey key: String, codec: Codec, expiry: ExpiryPolicy = .never) async throws {
        try await set(try codec.encode(value), forKey: key, expiry: expiry)
    }

    /// Stores several values in one statement (one round trip). When a key appears twice,
    /// the last value wins.
    ///
    /// ```swift
    /// try await cache.setMany(["a": Data("1".utf8), "b": Data("2".utf8)], expiry: .after(60))
    /// ```
    ///
    /// - throws: as ``set(_:forKey:expiry:)``; an invalid key or value refuses the whole batch.
    public func setMany(_ values: [String: Data], expiry: ExpiryPolicy = .never) async throws {
        try await setMany(values.map { ($0.key, $0.value) }, expiry: expiry)
    }

    /// Stores several values, given in order, in one statement; a later pair for the same
    /// key wins.
    ///
    /// ```swift
    /// try await cache.setMany([("a", Data("1".utf8)), ("b", Data("2".utf8))])
    /// ```
    ///
    /// - throws: as ``setMany(_:expiry:)-([String:Data],_)``.
    public func setMany(_ pairs: [(String, Data)], expiry: ExpiryPolicy = .never) async throws {
        let timeToLive = try Self.timeToLive(expiry)
        var entries = [SharedCacheSetMany.Entry]()
        entries.reserveCapacity(pairs.count)
        for (key, value) in pairs {
            let stored = try SharedCacheKey(key)
            try checkSize(value, key: stored)
            entries.append(.init(key: stored, value: ByteBuffer(bytes: value), timeToLiveMilliseconds: timeToLive))
        }
        let statement = SharedCacheSetMany(entries: entries, orderRefreshMilliseconds: orderRefreshMilliseconds)
        guard !statement.keys.isEmpty else { return }
        let bytes = statement.values.reduce(0) { $0 + $1.readableBytes }
        let count = statement.keys.count
        do {
            try await perform("writing \(count) keys", writes: true) { try await $0.run(statement) }
            counters.recordWrites(count, bytes: bytes)
            await noteWritten(bytes)
        } catch {
            counters.recordDroppedWrites(count)
            try absorb(error, "writing \(count) keys", fallback: ())
        }
    }

    /// Removes the value of `key` for every instance.
    ///
    /// ```swift
    /// try await cache.removeValue(forKey: "profile/42")
    /// ```
    ///
    /// - throws: `StashError(.invalidKey)`; `StashError(.unavailable)` when PostgreSQL fails
    ///   and the policy is `.strict` (lenient: dropped, logged and counted).
    public func removeValue(forKey key: String) async throws {
        let statement = SharedCacheRemove(key: try SharedCacheKey(key))
        do {
            try await perform("removing '\(statement.key.text)'", key: statement.key.text, writes: true) { try await $0.run(statement) }
        } catch {
            counters.recordDroppedWrites(1)
            try absorb(error, "removing '\(statement.key.text)'", fallback: ())
        }
    }

    /// Removes every entry of the table, for every instance.
    ///
    /// ```swift
    /// try await cache.removeAll()
    /// ```
    ///
    /// - throws: `StashError(.unavailable)` when PostgreSQL fails and the policy is `.strict`.
    public func removeAll() async throws {
        do {
            try await perform("removing all entries", writes: true) { try await $0.query("TRUNCATE stash_cache", logger: Self.statementLogger).drain() }
        } catch {
            counters.recordDroppedWrites(1)
            try absorb(error, "removing all entries", fallback: ())
        }
    }

    /// Removes every entry whose key starts with `prefix` (compared on the keys' stored NFC
    /// bytes), for every instance: one statement that scans the table, so meant for rare
    /// clean-ups (an `HTTPCache` forgetting its responses), under ten times
    /// ``Configuration/timeout``. Committed when it returns; thread-safe.
    ///
    /// ```swift
    /// try await cache.removeAll(withKeyPrefix: "user/42/")
    /// ```
    ///
    /// - throws: `StashError(.invalidKey)` when `prefix` holds NUL; `StashError(.unavailable)`
    ///   when PostgreSQL fails and the policy is `.strict`.
    public func removeAll(withKeyPrefix prefix: String) async throws {
        let prefix = try StoredKey.normalized(prefix)
        do {
            try await perform("removing the keys starting '\(prefix)'", timeout: configuration.timeout * 10, writes: true) {
                try await $0.query("DELETE FROM stash_cache WHERE starts_with(key, \(prefix))", logger: Self.statementLogger).drain()
            }
        } catch {
            counters.recordDroppedWrites(1)
            try absorb(error, "removing the keys starting '\(prefix)'", fallback: ())
        }
    }

    /// The longest key this cache takes, in bytes of UTF-8: 1024.
    ///
    /// ```swift
    /// let fits = key.utf8.count <= cache.keySizeLimit
    /// ```
    public var keySizeLimit: Int { SharedCacheKey.maximumBytes }

    /// Adds `amount` to the counter at `key` atomically across every instance and answers
    /// the new value. A missing or expired counter starts at 0; a counter keeps its expiry.
    /// Counters are stored as decimal text, so `value(forKey:codec: .json(Int.self))` reads one.
    ///
    /// ```swift
    /// let hits = try await cache.increment("rate/203.0.113.9", by: 1)
    /// if hits > 100 { throw TooManyRequests() }
    /// ```
    ///
    /// - throws: `StashError(.invalidKey)`; `StashError(.typeMismatch)` when the key holds
    ///   something other than an integer; `StashError(.unavailable)` whatever the policy,
    ///   because a counter has no honest answer without the server, or
    ///   `StashError(.mayHaveBeenApplied)` when the increment was sent but not answered (the
    ///   counter may have moved).
    @discardableResult
    public func increment(_ key: String, by amount: Int = 1) async throws -> Int {
        let statement = SharedCacheIncrement(key: try SharedCacheKey(key), amount: Int64(amount), orderRefreshMilliseconds: orderRefreshMilliseconds)
        let key = statement.key.text
        do {
            let value = try await perform("incrementing '\(key)'", key: key, writes: true) { connection -> Int64 in
                do {
                    for try await value in try await connection.execute(statement, logger: Self.statementLogger) { return value }
                } catch let error as PSQLError where error.serverInfo?[.sqlState] == "22P02" {
                    throw StashError(.typeMismatch, "the value is not an integer counter", key: key)
                }
                throw StashError(.unavailable, "incrementing '\(key)' answered no row", key: key)
            }
            counters.recordWrites(1, bytes: 0)
            return Int(value)
        } catch let error as StashError {
            if error.code == .unavailable || error.code == .mayHaveBeenApplied { counters.recordError() }
            throw error
        }
    }

    /// Writes one value under the policy; `keepTimeToLive` keeps a live entry's expiry.
    /// Plain writes that callers start at the same time go as one statement
    /// (``StatementBatcher``); one caller alone sends its own.
    func store(_ value: Data, forKey key: SharedCacheKey, timeToLive: Int64, keepTimeToLive: Bool) async throws {
        try checkSize(value, key: key)
        let entry = SharedCacheSetMany.Entry(key: key, value: ByteBuffer(bytes: value), timeToLiveMilliseconds: timeToLive)
        do {
            if keepTimeToLive {
                try await writeOne(entry, keepTimeToLive: true)
            } else {
                try await writes.run(entry, bytes: value.count) { entries in await self.write(entries) }
            }
            counters.recordWrites(1, bytes: value.count)
            await noteWritten(value.count)
        } catch {
            counters.recordDroppedWrites(1)
            try absorb(error, "writing '\(key.text)'", fallback: ())
        }
    }

    /// Writes `entries` in one statement (a later entry for a key wins) and answers the one
    /// outcome for each.
    private func write(_ entries: [SharedCacheSetMany.Entry]) async -> [Result<Void, any Error>] {
        var outcome: Result<Void, any Error> = .success(())
        do {
            if entries.count == 1, let entry = entries.first {
                try await writeOne(entry, keepTimeToLive: false)
            } else {
                let statement = SharedCacheSetMany(entries: entries, orderRefreshMilliseconds: orderRefreshMilliseconds)
                let count = statement.keys.count
                try await perform("writing \(count) keys", writes: true) { try await $0.run(statement) }
            }
        } catch {
            outcome = .failure(error)
        }
        return Array(repeating: outcome, count: entries.count)
    }

    /// Writes one entry in its own statement; `keepTimeToLive` keeps a live entry's expiry.
    private func writeOne(_ entry: SharedCacheSetMany.Entry, keepTimeToLive: Bool) async throws {
        let statement = SharedCacheSet(
            key: entry.key, value: entry.value, timeToLiveMilliseconds: entry.timeToLiveMilliseconds, keepTimeToLive: keepTimeToLive,
            orderRefreshMilliseconds: orderRefreshMilliseconds
        )
        try await perform("writing '\(entry.key.text)'", key: entry.key.text, writes: true) { try await $0.run(statement) }
    }

    func checkSize(_ value: Data, key: SharedCacheKey) throws {
        guard value.count <= configuration.valueSizeLimit else {
            throw StashError(
                .valueTooLarge, "the value is \(value.count) bytes, the shared cache takes at most \(configuration.valueSizeLimit)",
                key: key.text
            )
        }
    }

    /// `seconds` from now as a time to live in milliseconds; past times are 0, and a time
    /// beyond a thousand years is no expiry (-1).
    private static func milliseconds(_ seconds: Double) throws -> Int64 {
        guard !seconds.isNaN else { throw StashError(.unsupportedValue, "an expiry of NaN seconds") }
        if seconds > 1000 * 365 * 86_400 { return -1 }
        return Int64((max(0, seconds) * 1000).rounded(.up))
    }

    /// The time to live in milliseconds of `expiry` (-1: none).
    static func timeToLive(_ expiry: ExpiryPolicy) throws -> Int64 {
        switch expiry {
        case .never: return -1
        case .after(let seconds): return try milliseconds(seconds)
        case .at(let date): return try milliseconds(date.timeIntervalSinceNow)
        case .sliding:
            throw StashError(.unsupportedValue, "a shared cache does not support sliding expiry (it would write on every read); use .after")
        }
    }
}

extension PostgresConnection {
    /// Runs a statement that answers no rows, waiting for its command to complete. (The
    /// overload answering the command tag traps when the tag arrives after the row
    /// description, in postgres-nio 1.33.)
    func run<Statement: PostgresPreparedStatement>(_ statement: Statement) async throws where Statement.Row == () {
        try await execute(statement, logger: SharedCache.statementLogger).drain()
    }
}

extension AsyncSequence {
    /// Reads the sequence to its end (a statement's rows, so that its connection is released).
    func drain() async throws {
        for try await _ in self {}
    }
}
