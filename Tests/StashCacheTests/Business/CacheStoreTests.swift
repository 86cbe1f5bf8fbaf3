import Foundation
import StashCache
import StashCore
import StashTestSupport
import Testing

private struct Product: Codable, Sendable, Equatable {
    var id: Int
    var name: String
}

private struct Order: Codable, Sendable, Equatable {
    var number: String
}

private extension CacheKey where Value == [Product] {
    static var products: Self { CacheKey("products", freshness: .fresh(for: 600)) }
}

private func orders(of user: String, page: Int = 1) -> CacheKey<[Order]> {
    CacheKey("orders", scope: .user(user), location: .documents, parameter: "page=\(page)", freshness: .forever)
}

struct CacheStoreTests {
    let folder = TemporaryFolder("cachestore")
    let clock = ManualClock(now: Date(timeIntervalSince1970: 2_000_000))

    func makeStore() throws -> CacheStore {
        var configuration = DiskCache.Configuration()
        configuration.clock = clock
        return try CacheStore(sandbox: folder.sandbox(), configuration: configuration)
    }

    @Test func clearingOneUserLeavesOtherUsersAndSharedEntries() async throws {
        let store = try makeStore()
        try store.set([Product(id: 1, name: "tea")], for: .products)
        try store.set([Order(number: "A-1")], for: orders(of: "4"))
        try store.set([Order(number: "B-1")], for: orders(of: "42"))
        try store.set([Order(number: "B-2")], for: orders(of: "42", page: 2))
        try store.set([Order(number: "C-1")], for: CacheKey<[Order]>("orders", scope: .user("42")))
        #expect(store.size(of: .user("42")) > 0)

        let removed = try await store.removeAll(in: .user("42"))
        #expect(removed == 3)
        #expect(store.size(of: .user("42")) == 0)
        #expect(try store.value(for: orders(of: "42")) == nil)
        #expect(try store.value(for: orders(of: "42", page: 2)) == nil)
        #expect(try store.value(for: orders(of: "4"))?.value == [Order(number: "A-1")])
        #expect(try store.value(for: .products)?.value == [Product(id: 1, name: "tea")])
        #expect(store.size() == store.size(of: .shared) + store.size(of: .user("4")))
    }

    @Test func removeAllEmptiesEveryLocation() async throws {
        let store = try makeStore()
        try store.set([Product(id: 1, name: "tea")], for: .products)
        try store.set([Order(number: "A-1")], for: orders(of: "4"))
        try await store.removeAll()
        #expect(store.size() == 0)
        #expect(try store.value(for: .products) == nil)
    }

    @Test func locationsAreTheCachesAndDocumentsFolders() throws {
        let store = try makeStore()
        try store.set([Order(number: "A-1")], for: orders(of: "4"))
        try store.set([Product(id: 1, name: "tea")], for: .products)
        try store.close()
        let sandbox = folder.sandbox()
        #expect(FileStore.exists(sandbox.documents.appendingPathComponent("CacheStore/manifest.sqlite")))
        #expect(FileStore.exists(sandbox.caches.appendingPathComponent("CacheStore/manifest.sqlite")))
        let reopened = try makeStore()
        #expect(try reopened.value(for: orders(of: "4"))?.value == [Order(number: "A-1")])
        #expect(reopened.size(of: .user("4")) > 0)
    }

    @Test func storingNilRemoves() throws {
        let store = try makeStore()
        try store.set([Product(id: 1, name: "tea")], for: .products)
        try store.set(nil, for: .products)
        #expect(try store.value(for: .products) == nil)
        #expect(store.size() == 0)
    }

    @Test func anEntryThatNoLongerDecodesIsReportedAndKept() throws {
        let store = try makeStore()
        try store.set(["tea", "coffee"], for: CacheKey<[String]>("menu"))
        let renamed = CacheKey<[Product]>("menu")
        let error = #expect(throws: StashError.self) { _ = try store.value(for: renamed) }
        #expect(error?.code == .typeMismatch && error?.key == renamed.storageKey)
        // Still there for the type that wrote it: a failed decoding deletes nothing.
        #expect(try store.value(for: CacheKey<[String]>("menu"))?.value == ["tea", "coffee"])
        store.removeValue(for: renamed)
        #expect(try store.value(for: renamed) == nil)
    }

    @Test func freshnessPolicies() throws {
        let store = try makeStore()
        let prices = CacheKey<[Double]>("prices", freshness: .doNotCache)
        try store.set([9.99], for: prices)
        #expect(try store.value(for: prices) == nil)
        #expect(store.size() == 0)

        let countries = CacheKey<[String]>("countries", freshness: .forever)
        try store.set(["FR", "JP"], for: countries)
        try store.set([Product(id: 1, name: "tea")], for: .products)
        clock.advance(by: 599)
        let fresh = try #require(try store.value(for: .products))
        #expect(!fresh.isStale && fresh.age == 599)
        clock.advance(by: 1)
        let stale = try #require(try store.value(for: .products))
        #expect(stale.isStale && stale.age == 600 && stale.value == [Product(id: 1, name: "tea")])
        #expect(stale.storedAt == Date(timeIntervalSince1970: 2_000_000))
        clock.advance(by: 10 * 365 * 86_400)
        #expect(try store.value(for: countries)?.isStale == false)
    }

    @Test func parametersAndScopesMakeDistinctKeys() {
        let base = CacheKey<[Order]>("orders", scope: .user("a/b"))
        #expect(base.storageKey == "user/a%2Fb/orders")
        #expect(base.with(parameter: "page=2").storageKey == "user/a%2Fb/orders?page%3D2")
        #expect(CacheKey<[Order]>("orders").storageKey == "shared/orders")
        #expect(CacheKey<[Order]>("orders", scope: .user("4")).storageKey != CacheKey<[Order]>("orders", scope: .user("42")).storageKey)
    }
}
