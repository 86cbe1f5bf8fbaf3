import Foundation
import StashCache

// snippet.hide
let url = URL(string: "https://example.com/a.png")!
let saleURL = URL(string: "https://example.com/sale.png")!
let sessionURL = URL(string: "https://example.com/session")!
let otherURL = URL(string: "https://example.com/b.jpg")!
let png = Data(count: 100), banner = Data(count: 200), token = Data(count: 10), jpeg = Data(count: 300)
let saleEnd = Date().addingTimeInterval(3600)
// snippet.show
let thumbnails = MemoryCache<URL, Data>(configuration: .init(
    countLimit: 500,                          // entries
    costLimit: 64 * 1024 * 1024,              // here: bytes
    ageLimit: 3600,                           // nothing older than an hour is served
    defaultExpiry: .never,
    cost: { _, data in data.count },          // cost of an entry set without one
    onEvict: { url, _, reason in print("dropped \(url): \(reason)") }
))

thumbnails.set(png, forKey: url)                                 // cost from the closure
thumbnails.set(banner, forKey: saleURL, expiry: .at(saleEnd))    // per-entry expiry
thumbnails.set(token, forKey: sessionURL, expiry: .sliding(900)) // extended by every read
thumbnails[otherURL] = jpeg
let data = thumbnails.value(forKey: url)                         // nil if absent or expired
thumbnails.removeValue(forKey: url)                              // returns the old value

thumbnails.trim(toCount: 100)      // also trim(toCost:), trim(toAge:), removeExpired()
thumbnails.purge()                 // from the app's memory warning handler
print(thumbnails.statistics)       // hits, misses, evictions, count, totalCost, hitRatio
// snippet.hide
print("data \(data?.count ?? -1) count \(thumbnails.count)")
