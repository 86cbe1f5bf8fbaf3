// snippet.hide
import HTTPTypes
import StashHTTP
let client = CachingHTTPClient(cache: try HTTPCache(sandbox: .main), transport: URLSessionTransport())
// snippet.show
var request = HTTPRequest(method: .get, scheme: "https", authority: "example.com", path: "/video.mp4")
request.headerFields[.range] = "bytes=1000-1999"
let part = try await client.send(request) // 206 with Content-Range: bytes 1000-1999/… once the file is cached
// snippet.hide
print(part.response.status)
