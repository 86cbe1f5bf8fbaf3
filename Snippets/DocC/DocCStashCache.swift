import Foundation
import StashCache

// snippet.hide
import StashCore
struct Product: Codable, Sendable { var id: String }
let sandbox = try Sandbox(app: "com.example.shop")
let png = Data(count: 100)
let list = [Product(id: "42")]
func refresh() { print("refresh") }
// snippet.show
let images = try DiskCache(name: "images", in: sandbox)
try images.set(png, forKey: "https://cdn.example.com/42.png", expiry: .after(7 * 86_400))

let store = try CacheStore(sandbox: sandbox)
let products = CacheKey<[Product]>("products", freshness: .fresh(for: 600))
try store.set(list, for: products)
if let cached = try store.value(for: products), cached.isStale { refresh() }
// snippet.hide
print("image \(images.data(forKey: "https://cdn.example.com/42.png")?.count ?? -1)")
