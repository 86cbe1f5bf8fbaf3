import HTTPTypes
import StashHTTP

let cache = try HTTPCache(sandbox: .main, memoryCapacity: 4 << 20, diskCapacity: 64 << 20)
let client = CachingHTTPClient(cache: cache, transport: URLSessionTransport())
let answer = try await client.send(HTTPRequest(method: .get, scheme: "https",
                                               authority: "example.com", path: "/feed"))
print(answer.response.status, answer.outcome)   // 200 network, then 200 cache
