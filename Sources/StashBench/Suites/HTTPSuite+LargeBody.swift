import Foundation
import HTTPTypes
import Logging
import NIOCore
import Stash
import StashHTTPAsyncClient
import StashHTTPServer

extension HTTPSuite {
    /// Case `proxy-miss-large`: one 200 MB response per operation through Stash's caching
    /// proxy (a cache on disk, so the body is written to a file as it passes) and through
    /// nginx's `proxy_cache`, both in front of one origin; each operation asks for a new URL,
    /// so every one is a miss passed on while it is stored. The client reads the body as it
    /// arrives and counts it. Operations per second times 200 make MB/s.
    static func proxyMissLarge(_ context: BenchContext, scratch: URL) async throws {
        let name = "proxy-miss-large"
        guard context.runs(name) else { return }
        let size = context.scale < 1 ? 20_000_000 : 200_000_000
        var logger = Logger(label: "bench-origin")
        logger.logLevel = .warning
        try await BenchServers.run(logger: logger) { servers in
            let originPort = try await servers.startOrigin(payloads: [("large", size)])
            let cache = servers.closing(try HTTPCache(
                memoryCapacity: 4 << 20, diskCapacity: 8 * size, directory: scratch.appendingPathComponent("large-stash"), mode: .shared
            ))
            let proxyPort = try await servers.start(HTTPCachingProxy(upstream: URL(string: "http://127.0.0.1:\(originPort)")!, cache: cache))
            let nginx = try servers.startNginx(
                origin: originPort, folder: scratch.appendingPathComponent("large-nginx", isDirectory: true), context: context, for: name
            )
            let transport = servers.transport(timeout: .seconds(120))
            var peers = [("stash", proxyPort)]
            if let nginx { peers.append(("nginx", nginx.port)) }
            var next = 0
            let contenders = peers.map { impl, port in
                AsyncContender(impl) {
                    next += 1
                    let request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(port)", path: "/large/\(next)")
                    let (response, body) = try await transport.stream(request, body: Data())
                    var received = 0
                    for try await part in body { received += part.count }
                    guard response.status == .ok, received == size else {
                        throw BenchError("\(name) \(impl): \(response.status), \(received) of \(size) bytes")
                    }
                    return 1
                }
            }
            try await context.compareAsync(suite: suite, case: name, contenders, extra: ["bytes": "\(size)"])
            context.reporter.note("\(name): each operation is one \(size)-byte miss; \(cache.statistics)")
        }
    }
}
