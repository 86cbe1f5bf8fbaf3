import HTTPTypes
import StashHTTP
import StashHTTPAsyncClient

let request = HTTPRequest(method: .get, scheme: "https", authority: "example.com", path: "/")
let transport = AsyncHTTPClientTransport()
let client = CachingHTTPClient(cache: try HTTPCache(sandbox: .main), transport: transport)
let answer = try await client.send(request)
try await transport.shutdown()
// snippet.hide
print(answer.outcome)
