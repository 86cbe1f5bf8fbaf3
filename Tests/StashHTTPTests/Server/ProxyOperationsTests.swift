import Foundation
import HTTPTypes
import Logging
import NIOCore
import Prometheus
import StashCore
import StashHTTP
import StashHTTPAsyncClient
import StashTestSupport
import StashToolSupport
import Testing
@testable import StashHTTPServer

/// The operator's side of the proxy: the access log, the metrics, and the admin listener's
/// purge, against a real proxy, origin and admin listener on 127.0.0.1.
@Suite(.serialized)
struct ProxyOperationsTests {
    /// Collects the messages a logger is given.
    final class Lines: LogHandler, @unchecked Sendable {
        private let lines = LockedValue([String]())
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .info
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) { lines.withLock { $0.append(event.message.description) } }

        var all: [String] { lines.withLock { $0 } }
    }

    /// A proxy (metrics in its own registry, an access log) and its admin listener.
    struct Running {
        let origin: TestOrigin
        let proxy: HTTPCachingProxy
        let registry: PrometheusCollectorRegistry
        let log: Lines
        let port: Int
        let adminPort: Int
        let tasks: [Task<Void, any Error>]

        static func with(cache: HTTPCache? = nil, configuration: HTTPCachingProxy.Configuration = .init(), _ body: (Running) async throws -> Void) async throws {
            let origin = try await TestOrigin.start(clock: SystemClock())
            let registry = PrometheusCollectorRegistry()
            let proxy = HTTPCachingProxy(
                upstream: URL(string: origin.base)!, cache: try cache ?? HTTPCache(diskCapacity: 0, mode: .shared), configuration: configuration,
                transport: nil, answersHitsOnEventLoop: true, metricsFactory: PrometheusMetricsFactory(registry: registry)
            )
            let log = Lines()
            let accessLog = Logger(label: "test.access") { _ in log }
            let server = try await ListeningServer.start("proxy") { listening in try await proxy.run(port: 0, accessLog: accessLog) { listening($0) } }
            let admin = try await ListeningServer.start("admin") { listening in
                try await proxy.runAdmin(port: 0, metrics: { registry.emitToString() }) { listening($0) }
            }
            let running = Running(
                origin: origin, proxy: proxy, registry: registry, log: log, port: server.port, adminPort: admin.port, tasks: [server.task, admin.task]
            )
            do {
                try await body(running)
            } catch {
                await running.stop()
                throw error
            }
            await running.stop()
        }

        func stop() async {
            for task in tasks { task.cancel() }
            try? await proxy.shutdown()
            origin.stop()
        }

        /// One request on a connection of its own; the status and the whole response.
        func send(_ head: String, to port: Int? = nil) async throws -> (status: Int, text: String) {
            let client = try RawClient(port: port ?? self.port)
            #expect(client.send(head))
            let text = await client.response(toHead: head.hasPrefix("HEAD ")) ?? ""
            return (Int(text.split(separator: " ").dropFirst().first ?? "") ?? 0, text)
        }
    }

    /// One line per request, `METHOD TARGET STATUS BYTES SECONDS CACHE`, on the raw hit path,
    /// the full flow, and on a connection gone to the decoder alike; a refused request is
    /// logged with its target.
    @Test func accessLogHasALinePerRequest() async throws {
        try await Running.with { running in
            running.origin.set("/a", .ok([("Cache-Control", "max-age=600")], body: "hello"))
            _ = try await running.send("GET /a?x=1 HTTP/1.1\r\nHost: h\r\n\r\n")           // miss
            _ = try await running.send("GET /a?x=1 HTTP/1.1\r\nHost: h\r\n\r\n")           // raw hit
            _ = try await running.send("HEAD /a?x=1 HTTP/1.1\r\nHost: h\r\n\r\n")          // raw hit, no body
            _ = try await running.send("GET /a/../b HTTP/1.1\r\nHost: h\r\n\r\n")          // refused
            let client = try RawClient(port: running.port)                                // full-flow hit after a POST
            client.send("POST /other HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\n\r\nx")
            _ = await client.response()
            client.send("GET /a?x=1 HTTP/1.1\r\nHost: h\r\n\r\n")
            _ = await client.response()
            // A line is written once its answer is out, so it may follow the answer by a moment.
            _ = await eventually { running.log.all.count >= 6 }
            let lines = running.log.all
            #expect(lines.count == 6, "\(lines)")
            let fields = lines.map { $0.split(separator: " ").map(String.init) }
            #expect(fields.allSatisfy { $0.count == 6 && Double($0[4]) != nil }, "\(lines)")
            let summary = fields.map { [$0[0], $0[1], $0[2], $0[3], $0[5]].joined(separator: " ") }
            #expect(summary == [
                "GET /a?x=1 200 5 miss", "GET /a?x=1 200 5 hit", "HEAD /a?x=1 200 0 hit", "GET /a/../b 400 12 refused",
                "POST /other 404 12 miss", "GET /a?x=1 200 5 hit",
            ], "\(lines)")
        }
    }

    /// The metrics count requests by how they were answered, body bytes, open connections
    /// and upstream time, and the admin listener serves them as Prometheus text.
    @Test func metricsReachTheAdminListener() async throws {
        try await Running.with { running in
            running.origin.set("/a", .ok([("Cache-Control", "max-age=600")], body: "hello"))
            for _ in 0..<3 { _ = try await running.send("GET /a HTTP/1.1\r\nHost: h\r\n\r\n") }
            _ = try await running.send("GET * HTTP/1.1\r\nHost: h\r\n\r\n")
            let open = try RawClient(port: running.port)
            _ = open
            let (status, text) = try await running.send("GET /metrics HTTP/1.1\r\nHost: admin\r\n\r\n", to: running.adminPort)
            #expect(status == 200)
            #expect(text.contains("stash_proxy_requests_total{cache=\"hit\"} 2"), "\(text)")
            #expect(text.contains("stash_proxy_requests_total{cache=\"miss\"} 1"))
            #expect(text.contains("stash_proxy_requests_total{cache=\"refused\"} 1"))
            #expect(text.contains("stash_proxy_response_bytes_total 27"), "three bodies of 5 bytes and a refusal of 12")
            #expect(text.contains("stash_proxy_upstream_seconds_count 1"))
            #expect(text.contains("stash_proxy_open_connections"))
        }
    }

    /// `POST /purge?path=` forgets one URL (every variant), `?prefix=` every URL under a
    /// prefix; the next requests go to the origin. Only on the admin listener: the same
    /// request on the public one is forwarded like any other and purges nothing.
    @Test func purgeIsOnTheAdminListenerOnly() async throws {
        let folder = TemporaryFolder("proxy-purge")
        let cache = try HTTPCache(diskCapacity: 1 << 20, directory: folder.url, mode: .shared)
        try await Running.with(cache: cache) { running in
            for path in ["/news/a", "/news/b", "/about"] {
                running.origin.set(path, .ok([("Cache-Control", "max-age=600"), ("Vary", "Accept-Language")]))
                for language in ["en", "fr"] {
                    _ = try await running.send("GET \(path) HTTP/1.1\r\nHost: h\r\nAccept-Language: \(language)\r\n\r\n")
                }
            }
            let publicPurge = try await running.send("POST /purge?prefix=/ HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n")
            #expect(publicPurge.status == 404, "forwarded to the origin, which has no /purge")
            #expect(running.origin.requests("/purge").count == 1)

            let one = try await running.send("POST /purge?path=/about HTTP/1.1\r\nHost: admin\r\nContent-Length: 0\r\n\r\n", to: running.adminPort)
            #expect(one.status == 200 && one.text.hasSuffix("purged 1\n"))
            let prefix = try await running.send("POST /purge?prefix=/news/ HTTP/1.1\r\nHost: admin\r\nContent-Length: 0\r\n\r\n", to: running.adminPort)
            #expect(prefix.status == 200 && prefix.text.hasSuffix("purged 2\n"), "\(prefix.text)")
            for path in ["/news/a", "/news/b", "/about"] {
                _ = try await running.send("GET \(path) HTTP/1.1\r\nHost: h\r\nAccept-Language: fr\r\n\r\n")
                #expect(running.origin.requests(path).count == 3, "\(path) is fetched again after the purge")
            }
            for bad in ["POST /purge?path=http://elsewhere/x", "POST /purge?path=/a/../b", "POST /purge", "GET /purge?path=/a", "GET /nothing"] {
                let answer = try await running.send("\(bad) HTTP/1.1\r\nHost: admin\r\nContent-Length: 0\r\n\r\n", to: running.adminPort)
                #expect([400, 404, 405].contains(answer.status), "\(bad) → \(answer.text)")
            }
        }
    }
}
