import Foundation
import NIOCore
import PostgresNIO

// The prepared statements of the hot path. PostgreSQL parses and plans each once per
// connection; keys and values only ever travel as bound parameters, never inside SQL text.
// `$n < 0` in an age or time-to-live parameter means "none". Writes set `written_at` and
// leave `created_at` (indexed, the expiry order) as the first write set it: a write that
// changes no indexed column is a HOT update, which adds no index entries.

private let live = "(expires_at IS NULL OR expires_at > now()) AND ($3 < 0 OR written_at > now() - make_interval(secs => $3::float8 / 1000))"

extension PostgresBindings {
    /// Binds a key as the statements take it: its hash, then its text.
    mutating func append(_ key: SharedCacheKey) {
        append(key.hash)
        append(key.text)
    }

    /// The bindings of a read of one key: hash, text, maximum age.
    static func read(_ key: SharedCacheKey, maximumAgeMilliseconds: Int64) -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 3)
        bindings.append(key)
        bindings.append(maximumAgeMilliseconds)
        return bindings
    }

    /// The bindings of a write of one value: hash, text, value, size, time to live.
    static func write(_ key: SharedCacheKey, value: ByteBuffer, timeToLiveMilliseconds: Int64) -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 6)
        bindings.append(key)
        bindings.append(value)
        bindings.append(Int32(value.readableBytes))
        bindings.append(timeToLiveMilliseconds)
        return bindings
    }
}

/// One value by key.
struct SharedCacheGet: PostgresPreparedStatement {
    static let name = "stash_cache_get_v2"
    static let sql = "SELECT value FROM stash_cache WHERE key_hash = $1 AND key = $2 AND \(live)"
    typealias Row = ByteBuffer

    var key: SharedCacheKey
    var maximumAgeMilliseconds: Int64

    func makeBindings() throws -> PostgresBindings {
        .read(key, maximumAgeMilliseconds: maximumAgeMilliseconds)
    }

    func decodeRow(_ row: PostgresRow) throws -> ByteBuffer { try row.decode(ByteBuffer.self) }
}

/// One value by key with its remaining time to live in milliseconds (-1: none).
struct SharedCacheGetWithTTL: PostgresPreparedStatement {
    static let name = "stash_cache_get_ttl_v2"
    static let sql = """
        SELECT value, CASE WHEN expires_at IS NULL THEN -1
            ELSE GREATEST(0, floor(EXTRACT(EPOCH FROM (expires_at - now())) * 1000))::int8 END
        FROM stash_cache WHERE key_hash = $1 AND key = $2 AND \(live)
        """
    typealias Row = (ByteBuffer, Int64)

    var key: SharedCacheKey
    var maximumAgeMilliseconds: Int64

    func makeBindings() throws -> PostgresBindings {
        .read(key, maximumAgeMilliseconds: maximumAgeMilliseconds)
    }

    func decodeRow(_ row: PostgresRow) throws -> (ByteBuffer, Int64) { try row.decode((ByteBuffer, Int64).self) }
}

/// Many values in one round trip.
struct SharedCacheGetMany: PostgresPreparedStatement {
    static let name = "stash_cache_get_many_v2"
    static let sql = "SELECT key, value FROM stash_cache WHERE key_hash = ANY($1) AND key = ANY($2) AND \(live)"
    typealias Row = (String, ByteBuffer)

    var keys: [SharedCacheKey]
    var maximumAgeMilliseconds: Int64

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 3)
        bindings.append(keys.map(\.hash))
        bindings.append(keys.map(\.text))
        bindings.append(maximumAgeMilliseconds)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> (String, ByteBuffer) { try row.decode((String, ByteBuffer).self) }
}

/// The columns an upsert writes, with the time to live computed by the server's clock.
private let upsertColumns = "(key_hash, key, value, byte_size, created_at, written_at, expires_at)"
/// `created_at` of an upsert, the expiry order: kept while the row holds a live value of the
/// same key that entered the order less than `parameter` milliseconds ago (the unchanged
/// value keeps the update HOT), moved to now otherwise. So trimming removes the entries
/// written longest ago, to within that refresh interval, and a rewritten (revalidated) hot
/// entry is not among the first to go; the indexed column changes at most once per interval.
private func orderTime(refreshParameter parameter: String) -> String {
    """
    CASE WHEN t.key = excluded.key AND (t.expires_at IS NULL OR t.expires_at > now())
        AND t.created_at > now() - make_interval(secs => (\(parameter)::int8)::float8 / 1000)
        THEN t.created_at ELSE excluded.created_at END
    """
}
private let expiresFromTTL = "CASE WHEN $5 < 0 THEN NULL ELSE now() + make_interval(secs => $5::float8 / 1000) END"

/// Stores one value, replacing any other; with `keepTimeToLive`, a live entry of the same key
/// keeps its expiry (Hummingbird's `PersistDriver.set` without `expires`).
struct SharedCacheSet: PostgresPreparedStatement {
    static let name = "stash_cache_set_v2"
    static let sql = """
        INSERT INTO stash_cache AS t \(upsertColumns) VALUES ($1, $2, $3, $4, now(), now(), \(expiresFromTTL))
        ON CONFLICT (key_hash) DO UPDATE SET key = excluded.key, value = excluded.value,
            byte_size = excluded.byte_size, written_at = excluded.written_at, created_at = \(orderTime(refreshParameter: "$7")),
            expires_at = CASE WHEN $6 AND t.key = excluded.key AND (t.expires_at IS NULL OR t.expires_at > now())
                THEN t.expires_at ELSE excluded.expires_at END
        """
    typealias Row = Void

    var key: SharedCacheKey
    var value: ByteBuffer
    var timeToLiveMilliseconds: Int64
    var keepTimeToLive: Bool
    var orderRefreshMilliseconds: Int64

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings.write(key, value: value, timeToLiveMilliseconds: timeToLiveMilliseconds)
        bindings.append(keepTimeToLive)
        bindings.append(orderRefreshMilliseconds)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws {}
}

/// Stores one value only when the key has no live entry; answers one row when it stored.
struct SharedCacheCreate: PostgresPreparedStatement {
    static let name = "stash_cache_create_v2"
    static let sql = """
        INSERT INTO stash_cache AS t \(upsertColumns) VALUES ($1, $2, $3, $4, now(), now(), \(expiresFromTTL))
        ON CONFLICT (key_hash) DO UPDATE SET key = excluded.key, value = excluded.value,
            byte_size = excluded.byte_size, written_at = excluded.written_at, created_at = excluded.created_at,
            expires_at = excluded.expires_at
            WHERE t.key <> excluded.key OR (t.expires_at IS NOT NULL AND t.expires_at <= now())
        RETURNING 1
        """
    typealias Row = Int32

    var key: SharedCacheKey
    var value: ByteBuffer
    var timeToLiveMilliseconds: Int64

    func makeBindings() throws -> PostgresBindings {
        .write(key, value: value, timeToLiveMilliseconds: timeToLiveMilliseconds)
    }

    func decodeRow(_ row: PostgresRow) throws -> Int32 { try row.decode(Int32.self) }
}

/// Stores many values in one statement. Entries for one key (one key hash) are sent once,
/// the last one winning: an upsert may not touch a row twice.
struct SharedCacheSetMany: PostgresPreparedStatement {
    /// One value to store.
    struct Entry: Sendable {
        var key: SharedCacheKey
        var value: ByteBuffer
        var timeToLiveMilliseconds: Int64
    }

    static let name = "stash_cache_set_many_v2"
    static let sql = """
        INSERT INTO stash_cache AS t \(upsertColumns)
        SELECT h, k, v, s, now(), now(), CASE WHEN e < 0 THEN NULL ELSE now() + make_interval(secs => e::float8 / 1000) END
        FROM unnest($1::int8[], $2::text[], $3::bytea[], $4::int4[], $5::int8[]) AS u(h, k, v, s, e)
        ON CONFLICT (key_hash) DO UPDATE SET key = excluded.key, value = excluded.value,
            byte_size = excluded.byte_size, written_at = excluded.written_at, created_at = \(orderTime(refreshParameter: "$6")),
            expires_at = excluded.expires_at
        """
    typealias Row = Void

    private(set) var keys: [SharedCacheKey] = []
    private(set) var values: [ByteBuffer] = []
    private(set) var timeToLiveMilliseconds: [Int64] = []
    let orderRefreshMilliseconds: Int64

    init(entries: [Entry], orderRefreshMilliseconds: Int64) {
        self.orderRefreshMilliseconds = orderRefreshMilliseconds
        var position = [Int64: Int]()
        for entry in entries {
            if let index = position[entry.key.hash] {
                keys[index] = entry.key
                values[index] = entry.value
                timeToLiveMilliseconds[index] = entry.timeToLiveMilliseconds
            } else {
                position[entry.key.hash] = keys.count
                keys.append(entry.key)
                values.append(entry.value)
                timeToLiveMilliseconds.append(entry.timeToLiveMilliseconds)
            }
        }
    }

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 6)
        bindings.append(keys.map(\.hash))
        bindings.append(keys.map(\.text))
        bindings.append(values)
        bindings.append(values.map { Int32($0.readableBytes) })
        bindings.append(timeToLiveMilliseconds)
        bindings.append(orderRefreshMilliseconds)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws {}
}

/// Removes one key.
struct SharedCacheRemove: PostgresPreparedStatement {
    static let name = "stash_cache_remove_v2"
    static let sql = "DELETE FROM stash_cache WHERE key_hash = $1 AND key = $2"
    typealias Row = Void

    var key: SharedCacheKey

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 2)
        bindings.append(key)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws {}
}

/// Adds to a counter stored as decimal text (what `JSONCodec<Int>` writes), in one atomic
/// statement; a missing or expired counter starts at 0. Answers the new value.
struct SharedCacheIncrement: PostgresPreparedStatement {
    static let name = "stash_cache_increment_v2"
    private static let current = "(CASE WHEN t.key = excluded.key AND (t.expires_at IS NULL OR t.expires_at > now()) THEN convert_from(t.value, 'UTF8')::int8 ELSE 0 END + $3)::text"
    static let sql = """
        INSERT INTO stash_cache AS t \(upsertColumns)
        VALUES ($1, $2, convert_to($3::text, 'UTF8'), octet_length($3::text), now(), now(), NULL)
        ON CONFLICT (key_hash) DO UPDATE SET key = excluded.key,
            value = convert_to(\(current), 'UTF8'), byte_size = octet_length(\(current)), written_at = now(),
            created_at = \(orderTime(refreshParameter: "$4")),
            expires_at = CASE WHEN t.key = excluded.key AND (t.expires_at IS NULL OR t.expires_at > now())
                THEN t.expires_at ELSE NULL END
        RETURNING convert_from(value, 'UTF8')::int8
        """
    typealias Row = Int64

    var key: SharedCacheKey
    var amount: Int64
    var orderRefreshMilliseconds: Int64

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 4)
        bindings.append(key)
        bindings.append(amount)
        bindings.append(orderRefreshMilliseconds)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Int64 { try row.decode(Int64.self) }
}
