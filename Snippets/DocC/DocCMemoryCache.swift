import Foundation
import StashCache

// snippet.hide
let data = Data("avatar".utf8)
// snippet.show
let cache = MemoryCache<String, Data>(configuration: .init(
    countLimit: 500,
    costLimit: 50 * 1024 * 1024,
    defaultExpiry: .after(600),
    cost: { _, data in data.count }
))
cache.set(data, forKey: "avatar/ada")
let hit = cache.value(forKey: "avatar/ada")
// snippet.hide
print("hit \(hit?.count ?? -1)")
