import Foundation
import StashHTTP
import StashHTTPServer

// snippet.hide
import StashCore
let folder = try Sandbox.main.url(for: .caches).appendingPathComponent("proxy")
// snippet.show
let cache = try HTTPCache(memoryCapacity: 32 << 20, diskCapacity: 256 << 20, directory: folder, mode: .shared)
let proxy = HTTPCachingProxy(upstream: URL(string: "http://127.0.0.1:8000")!, cache: cache)
try await proxy.run(host: "127.0.0.1", port: 8080)
