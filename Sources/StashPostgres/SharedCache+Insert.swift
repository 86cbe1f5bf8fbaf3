package import Foundation
import NIOCore
import PostgresNIO
import StashCore

/// The writes and reads Hummingbird's `PersistDriver` asks for beyond the cache's own
/// (`StashPostgresHummingbird` conforms `SharedCache` with them): a write that refuses a live
/// key, a write that keeps a live value's expiry, and a read that answers the time left.
extension SharedCache {
    /// Stores `value` for `key` only when the key has no live value; `false` when it has one.
    /// `timeToLive` `nil` stores it without expiry. Not batched, and not under the failure
    /// policy: PostgreSQL's failure throws `StashError(.unavailable)`.
    ///
    /// ```swift
    /// let created = try await cache.insert(Data("42".utf8), forKey: "session/42", timeToLive: .seconds(60))
    /// ```
    package func insert(_ value: Data, forKey key: String, timeToLive: Duration?) async throws -> Bool {
        let stored = try SharedCacheKey(key)
        try checkSize(value, key: stored)
        let statement = SharedCacheCreate(
            key: stored, value: ByteBuffer(bytes: value), timeToLiveMilliseconds: timeToLive.map { max(0, $0.milliseconds) } ?? -1
        )
        let created = try await perform("creating '\(stored.text)'", key: stored.text, writes: true) { connection -> Bool in
            var created = false
            for try await _ in try await connection.execute(statement, logger: Self.statementLogger) { created = true }
            return created
        }
        guard created else { return false }
        counters.recordWrites(1, bytes: value.count)
        await noteWritten(value.count)
        return true
    }

    /// Stores `value` for `key` under the failure policy; `timeToLive` `nil` keeps the expiry
    /// of a live value (none for a new entry).
    ///
    /// ```swift
    /// try await cache.set(Data("42".utf8), forKey: "session/42", keepingExpiryUnless: nil)
    /// ```
    package func set(_ value: Data, forKey key: String, keepingExpiryUnless timeToLive: Duration?) async throws {
        try await store(
            value, forKey: try SharedCacheKey(key), timeToLive: timeToLive.map { max(0, $0.milliseconds) } ?? -1,
            keepTimeToLive: timeToLive == nil
        )
    }

    /// The value stored for `key` with the time it has left (`nil`: no expiry), or `nil`
    /// when there is none. Not under the failure policy: PostgreSQL's failure throws
    /// `StashError(.unavailable)`.
    ///
    /// ```swift
    /// if let (value, left) = try await cache.valueAndTimeToLive(forKey: "session/42") { print(value, left as Any) }
    /// ```
    package func valueAndTimeToLive(forKey key: String) async throws -> (value: Data, timeToLive: Duration?)? {
        let statement = SharedCacheGetWithTTL(key: try SharedCacheKey(key), maximumAgeMilliseconds: maximumAgeMilliseconds)
        let found = try await perform("reading '\(statement.key.text)'") { connection -> (ByteBuffer, Int64)? in
            for try await row in try await connection.execute(statement, logger: Self.statementLogger) { return row }
            return nil
        }
        guard let (buffer, timeToLive) = found else {
            counters.recordReads(hits: 0, misses: 1, bytes: 0)
            return nil
        }
        counters.recordReads(hits: 1, misses: 0, bytes: buffer.readableBytes)
        return (Data(buffer.readableBytesView), timeToLive < 0 ? nil : .milliseconds(timeToLive))
    }
}
