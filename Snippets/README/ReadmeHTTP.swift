import HTTPTypes          // HTTPRequest, HTTPResponse (swift-http-types)
import StashHTTP

let cache = try HTTPCache(sandbox: .main, memoryCapacity: 4 << 20, diskCapacity: 64 << 20)
let client = CachingHTTPClient(cache: cache, transport: URLSessionTransport())
let request = HTTPRequest(method: .get, scheme: "https", authority: "example.com", path: "/feed")
let answer = try await client.send(request, policy: .useProtocolCachePolicy)
print(answer.outcome)   // .network, .cache, .revalidated, .staleAfterNetworkFailure, .unavailable
print(cache.statistics) // hits, misses, revalidations, stale served, bytes saved
