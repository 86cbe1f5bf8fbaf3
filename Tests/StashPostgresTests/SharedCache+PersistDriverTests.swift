import Foundation
import Hummingbird
import StashPostgres
import StashPostgresHummingbird
import Testing

/// Hummingbird's `PersistDriver` semantics, as its own `PersistTests` define them.
@Suite(.enabled(if: TestPostgres.enabled, TestPostgres.skipReason))
struct SharedCachePersistDriverTests {
    struct TestCodable: Codable, Equatable, Sendable { let buffer: String }

    @Test func setThenGet() async throws {
        try await TestPostgres.withCache { persist in
            try await persist.set(key: "tag", value: "Persist")
            #expect(try await persist.get(key: "tag", as: String.self) == "Persist")
            #expect(try await persist.get(key: "missing", as: String.self) == nil)
        }
    }

    @Test func createThenGetAndDoubleCreateFails() async throws {
        try await TestPostgres.withCache { persist in
            try await persist.create(key: "tag", value: "Persist")
            #expect(try await persist.get(key: "tag", as: String.self) == "Persist")
            await #expect(throws: PersistError.duplicate) { try await persist.create(key: "tag", value: "Again") }
            #expect(try await persist.get(key: "tag", as: String.self) == "Persist")
            // An expired value does not block a create.
            try await persist.set(key: "old", value: "gone", expires: .seconds(0))
            try await persist.create(key: "old", value: "new")
            #expect(try await persist.get(key: "old", as: String.self) == "new")
        }
    }

    @Test func setTwiceKeepsTheLastValue() async throws {
        try await TestPostgres.withCache { persist in
            try await persist.set(key: "tag", value: "test1")
            try await persist.set(key: "tag", value: "test2")
            #expect(try await persist.get(key: "tag", as: String.self) == "test2")
        }
    }

    @Test func expires() async throws {
        try await TestPostgres.withCache { persist in
            try await persist.set(key: "tag1", value: "ThisIsTest1", expires: .seconds(0))
            try await persist.set(key: "tag2", value: "ThisIsTest2", expires: .seconds(10))
            #expect(try await persist.get(key: "tag1", as: String.self) == nil)
            #expect(try await persist.get(key: "tag2", as: String.self) == "ThisIsTest2")
        }
    }

    @Test func timeToLive() async throws {
        try await TestPostgres.withCache { persist in
            try await persist.set(key: "tag", value: "ThisIsTest2", expires: .seconds(10))
            let found = try #require(try await persist.getWithTTL(key: "tag", as: String.self))
            #expect(found.object == "ThisIsTest2")
            let ttl = try #require(found.ttl)
            #expect(ttl > .seconds(8) && ttl <= .seconds(10))
            try await persist.set(key: "forever", value: "x")
            #expect(try await persist.getWithTTL(key: "forever", as: String.self)?.ttl == nil)
            #expect(try await persist.getWithTTL(key: "none", as: String.self) == nil)
        }
    }

    @Test func setWithoutExpiryKeepsTheTimeToLive() async throws {
        try await TestPostgres.withCache { persist in
            try await persist.set(key: "tag", value: "first", expires: .seconds(100))
            try await persist.set(key: "tag", value: "second")
            let found = try #require(try await persist.getWithTTL(key: "tag", as: String.self))
            #expect(found.object == "second")
            let ttl = try #require(found.ttl)
            #expect(ttl > .seconds(90))
            // A value whose expiry passed does not lend it to the next set.
            try await persist.set(key: "past", value: "old", expires: .seconds(0))
            try await persist.set(key: "past", value: "new")
            #expect(try await persist.getWithTTL(key: "past", as: String.self)?.ttl == nil)
        }
    }

    @Test func codable() async throws {
        try await TestPostgres.withCache { persist in
            try await persist.set(key: "tag", value: TestCodable(buffer: "Persist"))
            #expect(try await persist.get(key: "tag", as: TestCodable.self) == TestCodable(buffer: "Persist"))
        }
    }

    @Test func invalidGetAs() async throws {
        try await TestPostgres.withCache { persist in
            try await persist.set(key: "test", value: TestCodable(buffer: "hello"))
            await #expect(throws: PersistError.invalidConversion) { try await persist.get(key: "test", as: String.self) }
            await #expect(throws: PersistError.invalidConversion) { try await persist.getWithTTL(key: "test", as: Int.self) }
        }
    }

    @Test func remove() async throws {
        try await TestPostgres.withCache { persist in
            try await persist.set(key: "tag", value: "ThisIsTest1")
            try await persist.remove(key: "tag")
            #expect(try await persist.get(key: "tag", as: String.self) == nil)
        }
    }

    @Test func expireAndAdd() async throws {
        try await TestPostgres.withCache { persist in
            try await persist.set(key: "tag", value: "ThisIsTest1", expires: .seconds(0))
            #expect(try await persist.get(key: "tag", as: String.self) == nil)
            try await persist.set(key: "tag", value: "ThisIsTest1", expires: .seconds(10))
            #expect(try await persist.get(key: "tag", as: String.self) == "ThisIsTest1")
        }
    }
}
