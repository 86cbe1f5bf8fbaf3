import Foundation
import HTTPTypes
import Logging
import NIOCore
import Stash
import StashHTTPAsyncClient
import StashHTTPServer

extension HTTPSuite {
    /// Cases `proxy-miss-large` and `proxy-hit-large`: one 200 MB response per operation
    /// through Stash's caching proxy (a cache on disk, so the body is written to a file as it
    /// passes) and through nginx's `proxy_cache`, both in front of one origin. In
    /// `proxy-miss-large` each operation asks for a new URL, so every one is a miss passed on
    /// while it is stored; in `proxy-hit-large` every operation asks for one stored URL and
    /// is a hit streamed from the stored file. The client reads the body as it arrives and
    /// counts it. Operations per second times 200 make MB/s. Notes give the peak resident
    /// memory (`VmHWM`) of the bench process (Stash's proxy, the origin holding its 200 MB
    /// body, and the client) and of nginx's workers at the start and after each case.
    static func proxyLargeBody(_ context: BenchContext, scratch: URL) async throws {
        let missCase = "proxy-miss-large"
        let hitCase = "proxy-hit-large"
        guard context.runs(missCase) || context.runs(hitCase) else { return }
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
                origin: originPort, folder: scratch.appendingPathComponent("large-nginx", isDirectory: true), context: context, for: missCase
            )
            let transport = servers.transport(timeout: .seconds(120))
            var peers = [("stash", proxyPort)]
            if let nginx { peers.append(("nginx", nginx.port)) }

            /// Streams `path` from `port` to the end; throws unless all `size` bytes came, and,
            /// when `hit`, unless the answer says it came from the cache.
            func fetch(_ impl: String, port: Int, path: String, hit: Bool, in name: String) async throws {
                let request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(port)", path: path)
                let (response, body) = try await transport.stream(request, body: Data())
                var received = 0
                for try await part in body { received += part.count }
                let status = response.headerFields[HTTPField.Name("Cache-Status")!] ?? ""
                guard response.status == .ok, received == size, !hit || status.lowercased().contains("hit") else {
                    throw BenchError("\(name) \(impl): \(response.status), \(received) of \(size) bytes, Cache-Status '\(status)'")
                }
            }
            func noteMemory(_ moment: String) {
                let nginxPeak = nginx.map { ", nginx's workers \(PeakMemory.megabytes($0.workerPeakBytes))" } ?? ""
                context.reporter.note("proxy-large \(moment): peak resident memory of the bench process \(PeakMemory.megabytes(PeakMemory.bytes(of: "self")))\(nginxPeak)")
            }

            noteMemory("at the start")
            if context.runs(missCase) {
                var next = 0
                let contenders = peers.map { impl, port in
                    AsyncContender(impl) {
                        next += 1
                        try await fetch(impl, port: port, path: "/large/\(next)", hit: false, in: missCase)
                        return 1
                    }
                }
                try await context.compareAsync(suite: suite, case: missCase, contenders, extra: ["bytes": "\(size)"])
                noteMemory("after the misses")
            }
            if context.runs(hitCase) {
                // A miss stores the body in each cache, then every operation is a hit.
                for (impl, port) in peers { try await fetch(impl, port: port, path: "/large/0", hit: false, in: hitCase) }
                let contenders = peers.map { impl, port in
                    AsyncContender(impl) {
                        try await fetch(impl, port: port, path: "/large/0", hit: true, in: hitCase)
                        return 1
                    }
                }
                try await context.compareAsync(suite: suite, case: hitCase, contenders, extra: ["bytes": "\(size)"])
                noteMemory("after the hits")
            }
            context.reporter.note("proxy-large: each operation is one \(size)-byte body; \(cache.statistics)")
        }
    }
}
