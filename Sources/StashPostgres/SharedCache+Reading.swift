public import Foundation
import NIOCore
import PostgresNIO
public import StashCache
public import StashCore

extension SharedCache {
    /// The value stored for `key`, or `nil` when there is none, it expired, or PostgreSQL
    /// failed (lenient policy).
    ///
    /// ```swift
    /// if let avatar = try await cache.value(forKey: "avatar/42") { … }
    /// ```
    ///
    /// - throws: `StashError(.invalidKey)` for an empty key, a key over 1 KB or holding NUL;
    ///   `StashError(.unavailable)` when PostgreSQL fails and the policy is `.strict`.
    public func value(forKey key: String) async throws -> Data? {
        let key = try SharedCacheKey(key)
        do {
            let buffer = try await reads.run(key, bytes: 0) { keys in await self.read(keys) }
            let data = buffer.map { Data($0.readableBytesView) }
            counters.recordReads(hits: data == nil ? 0 : 1, misses: data == nil ? 1 : 0, bytes: data?.count ?? 0)
            return data
        } catch {
            counters.recordReads(hits: 0, misses: 1, bytes: 0)
            return try absorb(error, "reading '\(key.text)'", fallback: nil)
        }
    }

    /// Reads `keys` in one statement (``StatementBatcher``: reads that callers start at the
    /// same time) and answers each one's value, in order.
    private func read(_ keys: [SharedCacheKey]) async -> [Result<ByteBuffer?, any Error>] {
        let maximumAge = maximumAgeMilliseconds
        do {
            if keys.count == 1, let key = keys.first {
                let statement = SharedCacheGet(key: key, maximumAgeMilliseconds: maximumAge)
                let value = try await perform("reading '\(key.text)'") { connection -> ByteBuffer? in
                    for try await value in try await connection.execute(statement, logger: Self.statementLogger) { return value }
                    return nil
                }
                return [.success(value)]
            }
            var unique = [SharedCacheKey]()
            var seen = Set<String>()
            for key in keys where seen.insert(key.text).inserted { unique.append(key) }
            let found = try await fetch(unique)
            return keys.map { .success(found[$0.text]) }
        } catch {
            return Array(repeating: .failure(error), count: keys.count)
        }
    }

    /// The live values of `keys` (no key twice) by their stored text, in one statement under
    /// the timeout.
    private func fetch(_ keys: [SharedCacheKey]) async throws -> [String: ByteBuffer] {
        let statement = SharedCacheGetMany(keys: keys, maximumAgeMilliseconds: maximumAgeMilliseconds)
        let count = keys.count
        return try await perform("reading \(count) keys") { connection in
            var found = [String: ByteBuffer]()
            for try await (key, value) in try await connection.execute(statement, logger: Self.statementLogger) { found[key] = value }
            return found
        }
    }

    /// The values stored for `keys`, in one round trip: a dictionary holding the keys that
    /// have a live value (empty when PostgreSQL failed, lenient policy).
    ///
    /// ```swift
    /// let found = try await cache.values(forKeys: ["user/1", "user/2", "user/3"])
    /// let missing = ["user/1", "user/2", "user/3"].filter { found[$0] == nil }
    /// ```
    ///
    /// - throws: `StashError(.invalidKey)` for any invalid key (nothing is read);
    ///   `StashError(.unavailable)` when PostgreSQL fails and the policy is `.strict`.
    public func values(forKeys keys: [String]) async throws -> [String: Data] {
        guard !keys.isEmpty else { return [:] }
        var callerKeys = [String: [String]]()
        var unique = [SharedCacheKey]()
        for key in keys {
            let stored = try SharedCacheKey(key)
            if callerKeys[stored.text] == nil { unique.append(stored) }
            callerKeys[stored.text, default: []].append(key)
        }
        do {
            let rows = try await fetch(unique)
            var result = [String: Data]()
            var bytes = 0
            for (stored, buffer) in rows {
                let data = Data(buffer.readableBytesView)
                bytes += data.count
                for key in callerKeys[stored] ?? [] { result[key] = data }
            }
            counters.recordReads(hits: rows.count, misses: unique.count - rows.count, bytes: bytes)
            return result
        } catch {
            counters.recordReads(hits: 0, misses: unique.count, bytes: 0)
            return try absorb(error, "reading \(unique.count) keys", fallback: [:])
        }
    }

    /// The value stored for `key`, decoded by `codec`; `nil` when there is none. A value the
    /// codec cannot decode is removed and answered as a miss.
    ///
    /// ```swift
    /// let profile = try await cache.value(forKey: "profile/42", codec: .json(Profile.self))
    /// ```
    ///
    /// - throws: as ``value(forKey:)``.
    public func value<Codec: CacheCodec>(forKey key: String, codec: Codec) async throws -> Codec.Value? {
        guard let data = try await value(forKey: key) else { return nil }
        do {
            return try codec.decode(data)
        } catch {
            configuration.logger.warning("shared cache: dropping '\(key)', its value does not decode: \(error)")
            try await removeValue(forKey: key)
            return nil
        }
    }

    /// The value for `key`; when there is none, one caller of this process runs `compute`,
    /// stores its result and answers it, while concurrent callers for the same key wait for
    /// that result instead of computing it again.
    ///
    /// ```swift
    /// let page = try await cache.value(forKey: "page/home", expiry: .after(30)) {
    ///     try await renderHomePage()
    /// }
    /// ```
    ///
    /// - parameters:
    ///   - key: the key.
    ///   - expiry: the expiry of a computed value.
    ///   - compute: makes the value; its error reaches every waiting caller, nothing is stored.
    /// - throws: `compute`'s error; as ``value(forKey:)`` and ``set(_:forKey:expiry:)``.
    public func value(
        forKey key: String, expiry: ExpiryPolicy = .never, orCompute compute: @escaping @Sendable () async throws -> Data
    ) async throws -> Data {
        let stored = try SharedCacheKey(key)
        let task = inFlight.withLock { tasks -> Task<Data, any Error> in
            if let running = tasks[stored.text] { return running }
            let task = Task {
                defer { _ = self.inFlight.withLock { $0.removeValue(forKey: stored.text) } }
                if let found = try await self.value(forKey: key) { return found }
                let computed = try await compute()
                try await self.set(computed, forKey: key, expiry: expiry)
                return computed
            }
            tasks[stored.text] = task
            return task
        }
        return try await task.value
    }
}
