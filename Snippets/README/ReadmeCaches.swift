import Stash
// snippet.hide
import Foundation
struct Feed: Codable, Sendable { var items: [String] }
struct Product: Codable, Sendable { var id: String }
struct Order: Codable, Sendable { var id: String }
let png = Data(repeating: 0x89, count: 30_000)
let feed = Feed(items: ["a"])
let list = [Product(id: "42")]
let userID = "ada"
func show(_ products: [Product]) { print("products \(products.count)") }
func refresh() { print("refresh") }
// snippet.show

let sandbox = try Sandbox(app: "com.example.shop")

// Disk: small values in a log of records, large ones in files named sha256(key).ext
let images = try DiskCache(name: "images", in: sandbox)          // Library/Caches/images
try images.set(png, forKey: "https://cdn.example.com/p/42.png", expiry: .after(7 * 86_400))
let data = images.data(forKey: "https://cdn.example.com/p/42.png")
// A file for a player: values above inlineThreshold (20 KB) only, else nil
let url = images.fileURL(for: "https://cdn.example.com/p/42.png")
try await images.trim()

// Memory in front of disk, typed
let feeds = HybridCache(disk: try DiskCache(name: "feeds", in: sandbox), codec: .json(Feed.self))
try feeds.set(feed, forKey: "home", expiry: .sliding(600))

// Business caches: typed keys, per-user scopes, freshness
let store = try CacheStore(sandbox: sandbox)
let products = CacheKey<[Product]>("products", freshness: .fresh(for: 600))
let orders = CacheKey<[Order]>("orders", scope: .user(userID), location: .documents, parameter: "page=1")
try store.set(list, for: products)
if let cached = try store.value(for: products) { show(cached.value); if cached.isStale { refresh() } }
try store.set(nil, for: products)                 // nil removes
try await store.removeAll(in: .user(userID))      // at logout; other users and shared data stay
// snippet.hide
print("data \(data?.count ?? -1)")
print("file \(url.map { FileManager.default.fileExists(atPath: $0.path) } ?? false)")
print("removed \(try store.value(for: products) == nil)")
_ = orders
