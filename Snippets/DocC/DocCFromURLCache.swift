import Foundation
import HTTPTypes
import StashHTTP

// snippet.hide
/// An origin in this process, standing in for `URLSessionTransport()`: the example needs no network.
struct Origin: HTTPTransport {
    func send(_ request: HTTPRequest, body: Data) async throws -> (HTTPResponse, Data) {
        let fields: HTTPFields = [.cacheControl: "max-age=60", .eTag: "\"v1\""]
        if request.headerFields[.ifNoneMatch] == "\"v1\"" {
            return (HTTPResponse(status: .notModified, headerFields: fields), Data())
        }
        return (HTTPResponse(status: .ok, headerFields: fields), Data(#"{"items":[]}"#.utf8))
    }
}
let transport = Origin()
// snippet.show
// URLCache(memoryCapacity: 4 << 20, diskCapacity: 64 << 20, directory: …): Library/Caches/HTTPCache
let cache = try HTTPCache(sandbox: .main, memoryCapacity: 4 << 20, diskCapacity: 64 << 20)

// configuration.urlCache = cache; configuration.requestCachePolicy = .useProtocolCachePolicy
// (an app passes URLSessionTransport(), a session whose own URLCache is off)
let client = CachingHTTPClient(cache: cache, transport: transport, defaultPolicy: .useProtocolCachePolicy)

// session.data(for: request): stored when RFC 9111 allows, served from the cache while fresh
let feed = HTTPRequest(url: URL(string: "https://api.example.com/feed?page=1")!)
let first = try await client.send(feed)                                            // .network
let second = try await client.send(feed)                                           // .cache

// request.cachePolicy = …
let checked = try await client.send(feed, policy: .reloadRevalidatingCacheData)   // 304: .revalidated
let reloaded = try await client.send(feed, policy: .reloadIgnoringLocalCacheData) // .network
let news = HTTPRequest(url: URL(string: "https://api.example.com/news")!)
let offline = try await client.send(news, policy: .returnCacheDataDontLoad)       // 504: .unavailable

// cachedResponse(for:): a response that may answer the request now, without the origin
let hit = cache.cachedResponse(for: feed)

// storeCachedResponse(_:for:): stored only when RFC 9111 allows it
let settings = HTTPRequest(url: URL(string: "https://api.example.com/settings")!)
let json = Data(#"{"theme":"dark"}"#.utf8)
let stored = cache.storeResponse(HTTPResponse(status: .ok, headerFields: [.cacheControl: "max-age=3600"]),
                                 body: json, for: settings)                        // true
let refused = cache.storeResponse(HTTPResponse(status: .ok, headerFields: [.cacheControl: "no-store"]),
                                  body: json, for: settings)                       // false

// A response that must be revalidated first: URLCache's cachedResponse(for:) returns it,
// cachedResponse(for:) here does not; the policy .returnCacheDataDontLoad serves it as stored.
let profile = HTTPRequest(url: URL(string: "https://api.example.com/profile")!)
let noCache = HTTPResponse(status: .ok, headerFields: [.cacheControl: "no-cache"])
cache.storeResponse(noCache, body: Data("Ada".utf8), for: profile)
let mustCheck = cache.cachedResponse(for: profile)                                 // nil
let asStored = try await client.send(profile, policy: .returnCacheDataDontLoad)   // .cache

// currentMemoryUsage, currentDiskUsage; and what URLCache does not count
let (memoryBytes, diskBytes) = (cache.currentMemoryUsage, cache.currentDiskUsage)
let statistics = cache.statistics  // hits, misses, revalidations, stale served, bytes saved

// removeCachedResponse(for:), removeAllCachedResponses()
cache.removeResponses(for: settings)
let forgotten = await cache.removeResponses(withURLPrefix: "https://api.example.com/feed")
try await cache.removeAll()
// snippet.hide
print("outcomes \(first.outcome) \(second.outcome) \(checked.outcome) \(reloaded.outcome)")
print("offline \(offline.outcome) \(offline.response.status.code)")
print("hit \(hit?.body.count ?? -1) stored \(stored) refused \(!refused)")
print("profile \(mustCheck == nil) \(asStored.outcome) \(String(decoding: asStored.body, as: UTF8.self))")
print("usage \(memoryBytes > 0) \(diskBytes > 0)")
print("hits \(statistics.hits) misses \(statistics.misses) revalidations \(statistics.revalidations)")
print("forgotten \(forgotten ?? -1) empty \(cache.cachedResponse(for: feed) == nil) \(cache.currentDiskUsage)")
