import Foundation
import PostgresNIO
import StashCache
import StashCore
import StashPostgres
import Testing

@Suite(.enabled(if: TestPostgres.enabled, TestPostgres.skipReason))
struct SharedCacheTests {
    @Test func storesReadsReplacesAndRemoves() async throws {
        try await TestPostgres.withCache { cache in
            #expect(try await cache.value(forKey: "greeting") == nil)
            try await cache.set(Data("hello".utf8), forKey: "greeting")
            #expect(try await cache.value(forKey: "greeting") == Data("hello".utf8))
            try await cache.set(Data("bonjour".utf8), forKey: "greeting")
            #expect(try await cache.value(forKey: "greeting") == Data("bonjour".utf8))
            try await cache.set(Data(), forKey: "empty")
            #expect(try await cache.value(forKey: "empty") == Data())
            try await cache.removeValue(forKey: "greeting")
            #expect(try await cache.value(forKey: "greeting") == nil)
            try await cache.set(Data("x".utf8), forKey: "other")
            try await cache.removeAll()
            #expect(try await cache.value(forKey: "other") == nil)
            let stats = cache.statistics
            #expect(stats.hits == 3)
            #expect(stats.misses == 3)
            #expect(stats.writes == 4)
            #expect(stats.bytesWritten == 13)
            #expect(stats.errors == 0)
        }
    }

    @Test func readsManyKeysAtOnce() async throws {
        try await TestPostgres.withCache { cache in
            try await cache.setMany([("a", Data("1".utf8)), ("b", Data("2".utf8)), ("a", Data("3".utf8))])
            let found = try await cache.values(forKeys: ["a", "b", "c", "a"])
            #expect(found == ["a": Data("3".utf8), "b": Data("2".utf8)])
            #expect(try await cache.values(forKeys: []) == [:])
            try await cache.setMany(["c": Data("4".utf8)], expiry: .after(0))
            #expect(try await cache.values(forKeys: ["c"]) == [:])
        }
    }

    /// Operations started at the same time go as shared statements: 120 writers (twenty of
    /// them on one key, whose entries meet in one statement) and 150 readers (hits, misses
    /// and one key asked for many times) each get their own answer, under the strict policy
    /// so that a failed statement would throw.
    @Test func concurrentOperationsShareStatementsAndKeepTheirOwnAnswers() async throws {
        try await TestPostgres.withCache({ $0.failurePolicy = .strict }) { cache in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<100 {
                    group.addTask { try await cache.set(Data("value \(index)".utf8), forKey: "item/\(index)") }
                }
                for writer in 0..<20 {
                    group.addTask { try await cache.set(Data("same \(writer)".utf8), forKey: "same") }
                }
                try await group.waitForAll()
            }
            let same = try #require(try await cache.value(forKey: "same"))
            #expect((0..<20).map { Data("same \($0)".utf8) }.contains(same))
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<150 {
                    group.addTask {
                        let key = index < 100 ? "item/\(index)" : index < 120 ? "missing/\(index)" : "item/7"
                        let expected = index < 100 ? Data("value \(index)".utf8) : index < 120 ? nil : Data("value 7".utf8)
                        let value = try await cache.value(forKey: key)
                        #expect(value == expected, "reader \(index) of \(key)")
                    }
                }
                try await group.waitForAll()
            }
            #expect(cache.largestBatches.reads > 1)
            #expect(cache.largestBatches.writes > 1)
            let stats = cache.statistics
            #expect(stats.writes == 120 && stats.hits == 131 && stats.misses == 20 && stats.errors == 0)
        }
    }

    @Test func keysFollowSwiftEqualityAcrossInstances() async throws {
        try await TestPostgres.withSchema { url, schema, client in
            let first = SharedCache(client: client, configuration: TestPostgres.configuration)
            try await first.migrate()
            try await first.set(Data("composed".utf8), forKey: "caf\u{E9}")
            // A second instance (another client on the same table) sees the same key.
            try await TestPostgres.withClient(url: url, schema: schema) { (other: PostgresClient) async throws in
                let second = SharedCache(client: other, configuration: TestPostgres.configuration)
                #expect(try await second.value(forKey: "cafe\u{301}") == Data("composed".utf8))
                #expect(try await second.value(forKey: "cafe") == nil)
                #expect(try await second.values(forKeys: ["cafe\u{301}"]) == ["cafe\u{301}": Data("composed".utf8)])
            }
        }
    }

    @Test func refusesBadKeysAndLargeValuesWithTypedErrors() async throws {
        try await TestPostgres.withCache({ $0.valueSizeLimit = 10 }) { cache in
            await #expect(throws: StashError.self) { try await cache.set(Data(), forKey: "") }
            do {
                try await cache.set(Data(), forKey: "a\u{0}b")
                Issue.record("a NUL key was accepted")
            } catch StashError.Code.invalidKey {}
            do {
                _ = try await cache.value(forKey: String(repeating: "k", count: 1025))
                Issue.record("a 1025-byte key was accepted")
            } catch StashError.Code.invalidKey {}
            try await cache.set(Data(), forKey: String(repeating: "k", count: 1024))
            do {
                try await cache.set(Data(count: 11), forKey: "big")
                Issue.record("an 11-byte value was accepted with a 10-byte limit")
            } catch StashError.Code.valueTooLarge {}
            do {
                try await cache.setMany(["fine": Data(count: 1), "big": Data(count: 11)])
                Issue.record("a batch with a large value was accepted")
            } catch StashError.Code.valueTooLarge {}
            #expect(try await cache.value(forKey: "fine") == nil)
            do {
                try await cache.set(Data(), forKey: "s", expiry: .sliding(10))
                Issue.record("sliding expiry was accepted")
            } catch StashError.Code.unsupportedValue {}
            // Quotes and SQL in keys are only ever bound parameters.
            let tricky = "'; DROP TABLE stash_cache; --"
            try await cache.set(Data("safe".utf8), forKey: tricky)
            #expect(try await cache.value(forKey: tricky) == Data("safe".utf8))
        }
    }

    @Test func expiresPerKey() async throws {
        try await TestPostgres.withCache { cache in
            try await cache.set(Data("gone".utf8), forKey: "past", expiry: .at(Date(timeIntervalSinceNow: -5)))
            try await cache.set(Data("gone".utf8), forKey: "zero", expiry: .after(0))
            try await cache.set(Data("here".utf8), forKey: "later", expiry: .after(3600))
            try await cache.set(Data("here".utf8), forKey: "never")
            #expect(try await cache.value(forKey: "past") == nil)
            #expect(try await cache.value(forKey: "zero") == nil)
            #expect(try await cache.value(forKey: "later") == Data("here".utf8))
            #expect(try await cache.value(forKey: "never") == Data("here".utf8))
            #expect(await cache.removeExpired() == 2)
            #expect(try await TestSQL.count(cache) == 2)
        }
    }

    @Test func codecValuesRoundTripAndUndecodableOnesAreDropped() async throws {
        struct Profile: Codable, Equatable { var name: String; var age: Int }
        try await TestPostgres.withCache { cache in
            try await cache.set(Profile(name: "Ada", age: 36), forKey: "p", codec: .json(Profile.self))
            #expect(try await cache.value(forKey: "p", codec: .json(Profile.self)) == Profile(name: "Ada", age: 36))
            try await cache.set(Data("not json".utf8), forKey: "bad")
            #expect(try await cache.value(forKey: "bad", codec: .json(Profile.self)) == nil)
            #expect(try await cache.value(forKey: "bad") == nil)
        }
    }

    @Test func computesAMissingValueOnceForConcurrentCallers() async throws {
        try await TestPostgres.withCache { cache in
            let calls = LockedValue(0)
            let results = try await withThrowingTaskGroup(of: Data.self) { group in
                for _ in 0..<16 {
                    group.addTask {
                        try await cache.value(forKey: "expensive") {
                            calls.withLock { $0 += 1 }
                            try await Task.sleep(for: .milliseconds(200))
                            return Data("computed".utf8)
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results == Array(repeating: Data("computed".utf8), count: 16))
            #expect(calls.withLock { $0 } == 1)
            #expect(try await cache.value(forKey: "expensive") == Data("computed".utf8))
            // Stored: a later caller does not compute.
            let again = try await cache.value(forKey: "expensive") { Issue.record("computed twice"); return Data() }
            #expect(again == Data("computed".utf8))
            struct Failure: Error {}
            await #expect(throws: Failure.self) { try await cache.value(forKey: "failing") { throw Failure() } }
            #expect(try await cache.value(forKey: "failing") == nil)
        }
    }

    @Test func incrementsAtomically() async throws {
        try await TestPostgres.withCache { cache in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<8 {
                    group.addTask { for _ in 0..<50 { try await cache.increment("counter") } }
                }
                try await group.waitForAll()
            }
            #expect(try await cache.increment("counter", by: 0) == 400)
            #expect(try await cache.increment("counter", by: -10) == 390)
            #expect(try await cache.value(forKey: "counter", codec: .json(Int.self)) == 390)
            try await cache.set(Data("plain text".utf8), forKey: "text")
            do {
                try await cache.increment("text")
                Issue.record("incremented a non-number")
            } catch StashError.Code.typeMismatch {}
            #expect(try await cache.value(forKey: "text") == Data("plain text".utf8))
        }
    }

    @Test func migrationIsRepeatableAndRefusesANewerLayout() async throws {
        try await TestPostgres.withSchema { _, _, client in
            let cache = SharedCache(client: client, configuration: TestPostgres.configuration)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 { group.addTask { try await cache.migrate() } }
                try await group.waitForAll()
            }
            try await cache.set(Data("kept".utf8), forKey: "k")
            try await cache.migrate()
            #expect(try await cache.value(forKey: "k") == Data("kept".utf8))
            try await client.query("UPDATE stash_cache_schema SET version = 99")
            do {
                try await cache.migrate()
                Issue.record("a newer layout was accepted")
            } catch StashError.Code.unsupportedVersion {}
        }
    }

    @Test func createsAnUnloggedTableWhenAsked() async throws {
        try await TestPostgres.withCache({ $0.unlogged = true }) { cache in
            var persistence = ""
            for try await value in try await cache.client.query(
                "SELECT relpersistence::text FROM pg_class WHERE oid = 'stash_cache'::regclass"
            ).decode(String.self) {
                persistence = value
            }
            #expect(persistence == "u")
        }
    }
}

/// Direct SQL on a cache's table, to check what the cache did.
enum TestSQL {
    static func count(_ cache: SharedCache) async throws -> Int {
        var count: Int64 = 0
        for try await value in try await cache.client.query("SELECT count(*)::int8 FROM stash_cache").decode(Int64.self) { count = value }
        return Int(count)
    }

    static func bytes(_ cache: SharedCache) async throws -> Int {
        var bytes: Int64 = 0
        for try await value in try await cache.client.query("SELECT coalesce(sum(byte_size), 0)::int8 FROM stash_cache").decode(Int64.self) {
            bytes = value
        }
        return Int(bytes)
    }
}
