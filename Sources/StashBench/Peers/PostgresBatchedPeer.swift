import Foundation
import NIOCore
import PostgresNIO
import StashPostgres

/// `postgres-batched`, the expert peer of the `shared` suite: a hand-written postgres-nio
/// client on the same plain key/value table as `postgres-raw`, sending operations that tasks
/// start at the same time as one prepared statement, as `SharedCache` does: reads as
/// `WHERE k = ANY($1)`, writes as one upsert of `unnest($1, $2)`, up to 64 operations a
/// statement, two reading statements and one writing statement in flight at once (the same
/// ``StatementBatcher`` and limits as `SharedCache`, so that the figures compare the table
/// and statements, not the batching).
struct PostgresBatchedPeer: Sendable {
    let client: PostgresClient
    private let reads = StatementBatcher<String, ByteBuffer?>(maximumRunning: 2, maximumBatch: 64, maximumBytes: .max)
    private let writes = StatementBatcher<BatchedSet.Entry, Void>(maximumRunning: 1, maximumBatch: 64, maximumBytes: 1 << 20)

    init(client: PostgresClient) { self.client = client }

    func value(forKey key: String) async throws -> ByteBuffer? {
        try await reads.run(key, bytes: 0) { keys in
            do {
                var found: [String: ByteBuffer] = [:]
                for try await (key, value) in try await client.execute(BatchedGet(keys: keys)) { found[key] = value }
                return keys.map { .success(found[$0]) }
            } catch {
                return keys.map { _ in .failure(error) }
            }
        }
    }

    func set(_ value: ByteBuffer, forKey key: String) async throws {
        try await writes.run(BatchedSet.Entry(key: key, value: value), bytes: value.readableBytes) { entries in
            do {
                try await client.execute(BatchedSet(entries: entries)).drainRows()
                return entries.map { _ in .success(()) }
            } catch {
                return entries.map { _ in .failure(error) }
            }
        }
    }
}

/// Reads of many keys in one prepared statement.
private struct BatchedGet: PostgresPreparedStatement {
    static let sql = "SELECT k, v FROM bench_kv WHERE k = ANY($1)"
    typealias Row = (String, ByteBuffer)
    var keys: [String]
    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(keys)
        return bindings
    }
    func decodeRow(_ row: PostgresRow) throws -> (String, ByteBuffer) { try row.decode((String, ByteBuffer).self) }
}

/// Writes of many entries in one prepared upsert. A key written twice in one batch keeps its
/// last value (an upsert may not touch a row twice).
private struct BatchedSet: PostgresPreparedStatement {
    struct Entry: Sendable {
        var key: String
        var value: ByteBuffer
    }

    static let sql = """
        INSERT INTO bench_kv (k, v) SELECT * FROM unnest($1::text[], $2::bytea[])
        ON CONFLICT (k) DO UPDATE SET v = excluded.v
        """
    typealias Row = Void
    var entries: [Entry]
    func makeBindings() throws -> PostgresBindings {
        var last: [String: Int] = [:]
        for (index, entry) in entries.enumerated() { last[entry.key] = index }
        let kept = entries.indices.filter { last[entries[$0].key] == $0 }.map { entries[$0] }
        var bindings = PostgresBindings(capacity: 2)
        bindings.append(kept.map(\.key))
        bindings.append(kept.map(\.value))
        return bindings
    }
    func decodeRow(_ row: PostgresRow) throws {}
}
