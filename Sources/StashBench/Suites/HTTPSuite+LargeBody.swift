import Foundation
import HTTPTypes
import Logging
import NIOCore
import Stash
import StashCore
import StashHTTPAsyncClient
import StashHTTPServer
import StashToolSupport

extension HTTPSuite {
    /// Cases `proxy-miss-large` and `proxy-hit-large`: one 200 MB response per operation
    /// through Stash's caching proxy (a cache on disk, so the body is written to a file as it
    /// passes) and through nginx's `proxy_cache`, both in front of one origin. In
    /// `proxy-miss-large` each operation asks for a new URL, so every one is a miss passed on
    /// while it is stored; in `proxy-hit-large` every operation asks for one stored URL and
    /// is a hit streamed from the stored file. The client reads the body as it arrives and
    /// counts it. Operations per second times 200 make MB/s. Each case starts its own origin,
    /// proxies (processes of their own) and cache folders (removed after it), so a case
    /// measures the same alone as after the other. Notes give each case's own peak resident
    /// memory (`VmHWM`, reset when the case starts) of the bench process (the origin holding
    /// its 200 MB body, and the client), of Stash's proxy and of nginx's workers.
    static func proxyLargeBody(_ context: BenchContext, scratch: URL) async throws {
        let size = context.scale < 1 ? 20_000_000 : 200_000_000
        for name in ["proxy-miss-large", "proxy-hit-large"] where context.runs(name) {
            let folder = scratch.appendingPathComponent(name, isDirectory: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            try await largeBodyCase(name, hits: name == "proxy-hit-large", size: size, context: context, folder: folder)
        }
    }

    private static func largeBodyCase(_ name: String, hits: Bool, size: Int, context: BenchContext, folder: URL) async throws {
        // Created here, readable by all: nginx's workers (user nobody) reach their folder
        // through it, and the cache would create it for its own folder as private.
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var logger = Logger(label: "bench-origin")
        logger.logLevel = .warning
        try await BenchServers.run(logger: logger) { servers in
            let originPort = try await servers.startOrigin(payloads: [("large", size)])
            // A disk cache eight bodies large (a body may take an eighth of it), and the same
            // for nginx's `max_size`.
            let proxyPort = try await servers.startStashProxy(
                "stash", origin: originPort, folder: folder.appendingPathComponent("stash", isDirectory: true), diskCapacity: 8 * size, context: context
            )
            let nginx = try servers.startNginx(
                origin: originPort, folder: folder.appendingPathComponent("nginx", isDirectory: true), cacheBytes: 8 * size,
                context: context, for: name
            )
            let transport = servers.transport(timeout: .seconds(120))
            var peers = [("stash", proxyPort)]
            if let nginx { peers.append(("nginx", nginx.port)) }

            /// Streams `path` from `port` to the end; throws unless all `size` bytes came, and,
            /// when `hit`, unless the answer says it came from the cache.
            func fetch(_ impl: String, port: Int, path: String, hit: Bool) async throws {
                let request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(port)", path: path)
                let (response, body) = try await transport.stream(request, body: Data())
                var received = 0
                for try await part in body { received += part.count }
                let status = response.headerFields[HTTPField.Name("Cache-Status")!] ?? ""
                guard response.status == .ok, received == size, !hit || status.lowercased().contains("hit") else {
                    throw BenchError("\(name) \(impl): \(response.status), \(received) of \(size) bytes, Cache-Status '\(status)'")
                }
            }

            // The hit case stores the body in each cache with one miss before it measures.
            if hits {
                for (impl, port) in peers { try await fetch(impl, port: port, path: "/large/0", hit: false) }
            }
            let resets = PeakMemory.resetPeak(of: "self")
            let stashProxy = servers.stashProxyProcess(port: proxyPort)
            let stashResets = stashProxy.map { PeakMemory.resetPeak(of: "\($0)") } ?? false
            let nginxResets = nginx?.resetWorkerPeaks() ?? false
            var next = 0
            let contenders = peers.map { impl, port in
                AsyncContender(impl) {
                    next += 1
                    try await fetch(impl, port: port, path: hits ? "/large/0" : "/large/\(next)", hit: hits)
                    return 1
                }.counting(servers.cpu(port: port))
            }
            try await context.compareAsync(suite: suite, case: name, contenders, extra: ["bytes": "\(size)"])
            // Each figure says what its own peak covers: the bench may reset its own and not
            // nginx's workers (which run as another user).
            func since(_ reset: Bool) -> String { reset ? "since the case started" : "of the whole run (the peak could not be reset)" }
            let nginxPeak = nginx.map { ", nginx's largest worker \(since(nginxResets)) \(PeakMemory.megabytes($0.workerPeakBytes))" } ?? ""
            let stashPeak = stashProxy.map { ", Stash's proxy \(since(stashResets)) \(PeakMemory.megabytes(PeakResidentMemory.bytes(of: "\($0)")))" } ?? ""
            context.reporter.note(
                "\(name): peak resident memory: bench process \(since(resets)) \(PeakMemory.megabytes(PeakResidentMemory.bytes(of: "self"))) "
                    + "(the client, and the origin holding its \(size)-byte body)\(stashPeak)\(nginxPeak)"
            )
        }
    }
}
