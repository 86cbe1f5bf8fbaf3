import Foundation
import Stash

extension Tour {
    @Sendable static func caches(_ tour: Tour) async throws {
        tour.say("A DiskCache keeps small values inside an SQLite manifest and large ones in files")
        tour.say("named after the SHA-256 of their key (plus the key's extension), in Library/Caches.")
        var configuration = DiskCache.Configuration()
        configuration.sizeLimit = 10 * 1024 * 1024
        configuration.ageLimit = 7 * 86_400
        let disk = try DiskCache(name: "tour-images", in: tour.sandbox, configuration: configuration)
        try disk.set(Data("small JSON, stored inline".utf8), forKey: "feed.json", expiry: .after(300))
        try disk.set(Data(repeating: 0xAB, count: 64 * 1024), forKey: "https://example.com/banner.png")
        try await disk.flush()
        for entry in try disk.entries() {
            tour.say("  \(entry.key): \(entry.size) bytes, \(entry.storage.rawValue)")
        }
        tour.showFiles(under: disk.directory)
        let statistics = try disk.statistics()
        tour.say("\(statistics.count) entries, \(statistics.totalSize) bytes; writes are staged and flushed in batches,")
        tour.say("and reopening after a crash reconciles the manifest with the files.")

        tour.say("")
        tour.say("A HybridCache puts a MemoryCache in front of a DiskCache and encodes values with a codec:")
        let hybrid = HybridCache(disk: try DiskCache(name: "tour-profiles", in: tour.sandbox), codec: .json([String: String].self))
        try hybrid.set(["name": "Ada", "city": "London"], forKey: "profile/ada")
        hybrid.memory.removeAll()
        _ = hybrid.value(forKey: "profile/ada")
        tour.say("  read from disk, promoted to memory: \(hybrid.memory.contains("profile/ada"))")

        tour.say("")
        tour.say("A CacheStore holds business data under typed keys, per scope, with freshness:")
        let clock = ManualClock()
        var storeConfiguration = DiskCache.Configuration()
        storeConfiguration.clock = clock
        let store = try CacheStore(sandbox: tour.sandbox, name: "tour-store", configuration: storeConfiguration)
        let products = CacheKey<[String]>("products", freshness: .fresh(for: 600))
        let orders = CacheKey<[String]>("orders", scope: .user("42"), location: .documents)
        try store.set(["tea", "coffee"], for: products)
        try store.set(["A-1"], for: orders)
        clock.advance(by: 900)
        if let cached = try store.value(for: products) {
            tour.say("  products \(cached.value), \(Int(cached.age.rounded())) s old, stale: \(cached.isStale)")
        }
        tour.say("  user 42 holds \(store.size(of: .user("42"))) bytes; logging out clears them:")
        let removed = try await store.removeAll(in: .user("42"))
        tour.say("  removed \(removed) entries; products still cached: \(try store.value(for: products) != nil)")
        try store.close()
        tour.say("")
        tour.hint("stash cache stats --dir", folder: disk.directory)
        try disk.close()
    }
}
