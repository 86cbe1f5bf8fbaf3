// snippet.hide
import Foundation
import StashHTTP
import StashHTTPServer
let cache = try HTTPCache(mode: .shared)
// snippet.show
var configuration = HTTPCachingProxy.Configuration()
configuration.maximumRequestBodySize = 8 << 20 // 413 past 8 MiB
configuration.virtualHosts = ["example.com", "www.example.com"]
let proxy = HTTPCachingProxy(upstream: URL(string: "http://127.0.0.1:8000")!, cache: cache, configuration: configuration)
let purged = await proxy.purge("/news/today", host: "example.com")
let underNews = await proxy.purge(prefix: "/news/", host: "example.com")
// snippet.hide
print("purged \(purged) \(underNews ?? -1)")
