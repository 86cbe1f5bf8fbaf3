// snippet.hide
import Foundation
import HTTPTypes
import StashHTTP
import StashHTTPAsyncClient
let cache = try HTTPCache(mode: .shared)
let transport = AsyncHTTPClientTransport()
let request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:9", path: "/video.mp4")
let output = FileHandle.nullDevice
do {
// snippet.show
let answer = try await cache.streamResponse(to: request) { request, body in
    try await transport.stream(request, body: body)
}
for try await part in answer.body { try output.write(contentsOf: part) }
// snippet.hide
} catch {
    print("no origin: \(error)")
}
try await transport.shutdown()
