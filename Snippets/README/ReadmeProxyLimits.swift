// snippet.hide
import Foundation
import StashHTTP
import StashHTTPServer
let origin = URL(string: "http://127.0.0.1:8000")!
let cache = try HTTPCache(mode: .shared)
// snippet.show
let proxy = HTTPCachingProxy(upstream: origin, cache: cache, configuration: .init(
    headerTimeout: .seconds(10), idleTimeout: .seconds(30), upstreamReadTimeout: .seconds(15), maximumConnections: 512))
// snippet.hide
print("limits \(proxy.configuration.headerTimeout) \(proxy.configuration.maximumConnections ?? 0)")
