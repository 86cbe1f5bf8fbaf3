// snippet.hide
import Stash
struct Product: Codable, Sendable { var id: String }
let product = Product(id: "42")
let folder = try Sandbox(app: "com.example.shop").url(for: .caches)
// snippet.show
let recent = ExpiringPool<String, Product>(countLimit: 50, defaultExpiry: .after(15 * 60))
recent.set(product, forKey: product.id)
let searches = BoundedQueue<String>(countLimit: 20)
searches.append("swift caches")                  // returns the element it dropped, if any

let file = folder.appendingPathComponent("recent.json")
try recent.save(to: file)
let restored = try ExpiringPool<String, Product>(contentsOf: file, countLimit: 50, defaultExpiry: .after(900))
// snippet.hide
print("restored \(restored.count)")
