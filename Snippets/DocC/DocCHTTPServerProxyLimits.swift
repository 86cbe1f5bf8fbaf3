// snippet.hide
import Foundation
import StashHTTP
import StashHTTPServer
let cache = try HTTPCache(mode: .shared)
// snippet.show
let limits = HTTPCachingProxy.Configuration(headerTimeout: .seconds(10), maximumConnections: 512)
let proxy = HTTPCachingProxy(upstream: URL(string: "http://127.0.0.1:8000")!, cache: cache, configuration: limits)
// snippet.hide
print("limits \(proxy.configuration.headerTimeout) \(proxy.configuration.maximumConnections ?? 0)")
