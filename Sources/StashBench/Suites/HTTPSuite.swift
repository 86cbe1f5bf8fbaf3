import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Stash
import StashHTTPAsyncClient
import StashHTTPServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `stash-bench http`: the library API against Foundation's URLCache on the same 1 KB
/// responses in the same order, then cache hits through the caching proxy against nginx's
/// `proxy_cache` in front of the same origin (when nginx is installed).
enum HTTPSuite {
    static let suite = "http"

    @Sendable static func run(_ context: BenchContext) async throws {
        let count = context.scaled(10_000)
        // Foundation's URLCache on Linux does work proportional to its size on every store
        // and miss (about 80 ms a store at 1,000 entries), so it gets the first 1,000 only.
        let peerCount = min(count, context.scaled(1_000))
        let body = Data(repeating: 0x61, count: 1024)
        let scratch = try context.makeScratch("http")
        defer { context.removeScratch(scratch) }

        let cache = try HTTPCache(memoryCapacity: 64 << 20, diskCapacity: 256 << 20, directory: scratch.appendingPathComponent("stash"))
        let urlCache = URLCache(memoryCapacity: 64 << 20, diskCapacity: 256 << 20, diskPath: scratch.appendingPathComponent("urlcache").path)
        let fields: HTTPFields = [.cacheControl: "max-age=3600", .contentType: "text/plain", .eTag: "\"v1\""]
        let requests = (0..<(2 * count)).map { HTTPRequest(method: .get, scheme: "https", authority: "bench.test", path: "/item/\($0)?page=1") }
        let urlRequests = (0..<(count + peerCount)).map { URLRequest(url: URL(string: "https://bench.test/item/\($0)?page=1")!) }
        let urlResponses = (0..<peerCount).map { index in
            CachedURLResponse(
                response: HTTPURLResponse(url: urlRequests[index].url!, statusCode: 200, httpVersion: "HTTP/1.1",
                                          headerFields: ["Cache-Control": "max-age=3600", "Content-Type": "text/plain", "ETag": "\"v1\""])!,
                data: body
            )
        }
        let response = HTTPResponse(status: .ok, headerFields: fields)

        try await context.compare(suite: suite, case: "store", [
            Contender("stash", drain: { try await cache.flush() }) {
                for index in 0..<count { cache.storeResponse(response, body: body, for: requests[index]) }
                return count
            },
            Contender(FoundationPeer.urlCache) {
                for index in 0..<peerCount { urlCache.storeCachedResponse(urlResponses[index], for: urlRequests[index]) }
                return peerCount
            },
        ])
        if !context.runs("store") && (context.runs("lookup-hit") || context.runs("lookup-miss")) {
            // `--case lookup-hit` alone: the lookups must still find what the store case keeps.
            for index in 0..<count { cache.storeResponse(response, body: body, for: requests[index]) }
            for index in 0..<peerCount where context.runsImpl(FoundationPeer.urlCache) {
                urlCache.storeCachedResponse(urlResponses[index], for: urlRequests[index])
            }
        }
        // The lookups time lookups, not the disk writing out the stores in the background.
        try await cache.flush()
        var found = 0
        try await context.compare(suite: suite, case: "lookup-hit", [
            Contender("stash") {
                for index in 0..<count where cache.cachedResponse(for: requests[index]) != nil { found += 1 }
                return count
            },
            Contender(FoundationPeer.urlCache) {
                for index in 0..<peerCount where urlCache.cachedResponse(for: urlRequests[index]) != nil { found += 1 }
                return peerCount
            },
        ])
        try await context.compare(suite: suite, case: "lookup-miss", [
            Contender("stash") {
                for index in count..<(2 * count) where cache.cachedResponse(for: requests[index]) != nil { found += 1 }
                return count
            },
            Contender(FoundationPeer.urlCache) {
                for index in count..<(count + peerCount) where urlCache.cachedResponse(for: urlRequests[index]) != nil { found += 1 }
                return peerCount
            },
        ])
        if context.runs("lookup-hit") || context.runs("lookup-miss") {
            context.reporter.note("lookups found \(found) responses (lookup-hit finds every one, lookup-miss none)")
        }
        try await varyCase(context, count: count, peerCount: peerCount, body: body, scratch: scratch)
        try cache.close()
        try await proxyHit(context, scratch: scratch)
        try await proxyLargeBody(context, scratch: scratch)
    }

    /// Three language variants per URL; lookups ask for the middle one. URLCache ignores
    /// `Vary`, so it returns whichever variant was stored last.
    private static func varyCase(_ context: BenchContext, count: Int, peerCount: Int, body: Data, scratch: URL) async throws {
        // The fill costs tens of seconds (URLCache): not for a run of other cases.
        guard context.runs("lookup-vary") else { return }
        let cache = try HTTPCache(memoryCapacity: 64 << 20, diskCapacity: 256 << 20, directory: scratch.appendingPathComponent("stash-vary"))
        defer { try? cache.close() }
        let urlCache = URLCache(memoryCapacity: 64 << 20, diskCapacity: 256 << 20, diskPath: scratch.appendingPathComponent("urlcache-vary").path)
        let languages = ["en", "de", "fr"]
        let urls = max(1, count / languages.count)
        let peerURLs = max(1, peerCount / languages.count)
        func request(_ index: Int, _ language: String) -> HTTPRequest {
            var request = HTTPRequest(method: .get, scheme: "https", authority: "bench.test", path: "/vary/\(index)")
            request.headerFields[.acceptLanguage] = language
            return request
        }
        func urlRequest(_ index: Int, _ language: String) -> URLRequest {
            var request = URLRequest(url: URL(string: "https://bench.test/vary/\(index)")!)
            request.setValue(language, forHTTPHeaderField: "Accept-Language")
            return request
        }
        let fields: HTTPFields = [.cacheControl: "max-age=3600", .vary: "Accept-Language"]
        for index in 0..<urls {
            for language in languages {
                cache.storeResponse(HTTPResponse(status: .ok, headerFields: fields), body: body, for: request(index, language))
                guard index < peerURLs, context.runsImpl(FoundationPeer.urlCacheIgnoringVary) else { continue }
                let response = HTTPURLResponse(url: URL(string: "https://bench.test/vary/\(index)")!, statusCode: 200, httpVersion: "HTTP/1.1",
                                               headerFields: ["Cache-Control": "max-age=3600", "Vary": "Accept-Language"])!
                urlCache.storeCachedResponse(CachedURLResponse(response: response, data: body), for: urlRequest(index, language))
            }
        }
        try await cache.flush()
        let lookups = (0..<urls).map { request($0, "de") }
        let peerLookups = (0..<peerURLs).map { urlRequest($0, "de") }
        var found = 0
        try await context.compare(suite: suite, case: "lookup-vary", [
            Contender("stash") {
                for lookup in lookups where cache.cachedResponse(for: lookup) != nil { found += 1 }
                return urls
            },
            Contender(FoundationPeer.urlCacheIgnoringVary) {
                for lookup in peerLookups where urlCache.cachedResponse(for: lookup) != nil { found += 1 }
                return peerURLs
            },
        ])
    }

    /// Cache hits through Stash's caching proxy, nginx's `proxy_cache` and Varnish, each a
    /// process of its own in front of one Hummingbird origin, loaded alternately by the same
    /// client (wrk when installed), servers and client pinned apart (``CPUPinning``). Cases
    /// `proxy-hit-1k-c32`, `proxy-hit-100k-c32`, `proxy-hit-1k-c500`. `stash` is
    /// `stash http-proxy` with its defaults (memory in front of a disk cache);
    /// `stash-memory-only` the same without the disk; `nginx-sendfile-off` is nginx with
    /// `sendfile off`; `floor` is no proxy but nginx answering a constant body
    /// (``BenchServers/startFloor(bodyBytes:folder:)``), about the most the client and machine
    /// let any server show. Each figure carries wrk's median and
    /// 99th percentile latency (`p50_ms`, `p99_ms`: the median over the samples) and its
    /// error count.
    private static func proxyHit(_ context: BenchContext, scratch: URL) async throws {
        let cases: [(name: String, path: String, connections: Int, bodyBytes: Int)] = [
            ("proxy-hit-1k-c32", "/1k/1", 32, 1024), ("proxy-hit-100k-c32", "/100k/1", 32, 100 * 1024), ("proxy-hit-1k-c500", "/1k/2", 500, 1024),
        ].filter { context.runs($0.name) }
        let openCases = openLoopCases.filter { open in
            context.runs(open.name) || offeredShares.contains { context.runs("\(open.name)-\($0)pct") }
        }
        guard !cases.isEmpty || !openCases.isEmpty else { return }
        var logger = Logger(label: "bench-origin")
        logger.logLevel = .warning
        context.reporter.note("proxy-hit: \(CPUPinning.description); each proxy measured with the other proxies' processes paused (SIGSTOP)")
        try await BenchServers.run(logger: logger) { servers in
            let originPort = try await servers.startOrigin(payloads: [("1k", 1024), ("100k", 100 * 1024)])
            var peers: [(String, Int)] = []
            for (impl, disk) in [("stash", nil), ("stash-memory-only", 0)] where context.runsImpl(impl) {
                let folder = scratch.appendingPathComponent(impl, isDirectory: true)
                peers.append((impl, try await servers.startStashProxy(impl, origin: originPort, folder: folder, diskCapacity: disk, context: context)))
            }
            for (impl, sendfile) in [("nginx", true), ("nginx-sendfile-off", false)] where context.runsImpl(impl) {
                if let nginx = try servers.startNginx(
                    origin: originPort, folder: scratch.appendingPathComponent(impl, isDirectory: true), sendfile: sendfile,
                    context: context, for: "proxy-hit"
                ) {
                    peers.append((impl, nginx.port))
                }
            }
            if context.runsImpl("varnish"), let varnish = try servers.startVarnish(
                origin: originPort, folder: scratch.appendingPathComponent("varnish", isDirectory: true), context: context, for: "proxy-hit"
            ) {
                peers.append(("varnish", varnish.port))
            }
            // The floor: what this client and machine let any server show, per body size.
            var floors: [Int: Int] = [:]
            if context.runsImpl("floor") {
                if NginxPeer.executable == nil {
                    context.reporter.note("proxy-hit: the floor is the bench's own poll loop (nginx is not installed)")
                }
                for bodyBytes in Set(cases.map(\.bodyBytes) + (openCases.isEmpty ? [] : [1024])) {
                    floors[bodyBytes] = try servers.startFloor(bodyBytes: bodyBytes, folder: scratch.appendingPathComponent("floor", isDirectory: true))
                }
            }
            let load = LoadGenerator()
            let transport = servers.transport(timeout: .seconds(30))
            let seconds = context.scale < 1 ? 1 : 2
            // Each proxy is measured with the others paused (``BenchServers/runAlone(port:)``).
            var alone = true
            for (name, path, connections, bodyBytes) in cases {
                var contenders: [AsyncContender] = []
                for (impl, port) in peers + (floors[bodyBytes].map { [("floor", $0)] } ?? []) {
                    let url = "http://127.0.0.1:\(port)\(path)"
                    // Primes the cache: the first answer is a miss, then hits (the floor has none).
                    for _ in 0..<2 { _ = try await transport.send(HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(port)", path: path), body: Data()) }
                    let contender = AsyncContender(impl, prepare: {
                        if alone, !servers.runAlone(port: port) {
                            alone = false
                            context.reporter.note("proxy-hit: the servers could not be paused (another user's processes): all ran during every sample")
                        }
                    }, measured: {
                        // wrk's own run length: its start-up and exit are not the proxies' time.
                        let run = try await load.run(url: url, connections: connections, seconds: seconds, transport: transport)
                        return Measurement(load: run)
                    })
                    contenders.append(contender.counting(servers.cpu(port: port)))
                }
                defer { servers.continueAll() }
                try await context.compareAsync(suite: suite, case: name, contenders, extra: ["client": load.name, "connections": "\(connections)"])
            }
            for (name, workload) in openCases {
                try await openLoop(context, name: name, workload: workload, servers: servers, peers: peers, floor: floors[1024], transport: transport)
            }
        }
    }

    /// The open-loop cases: `proxy-latency-1k`, hits of one URL, and `proxy-mixed`, many URLs
    /// with a browser's fields, misses and a long tail of large bodies
    /// (``OpenLoadGenerator/Workload``).
    static let openLoopCases: [(name: String, workload: OpenLoadGenerator.Workload)] = [("proxy-latency-1k", .hot), ("proxy-mixed", .mixed)]

    /// The shares of nginx's capacity the open-loop cases offer every proxy.
    static let offeredShares = [50, 90]

    /// Latency at equal offered load: every proxy gets the same schedule of requests
    /// (``OpenLoadGenerator``, 32 connections; 6 s a sample, so 30 s a proxy over the default
    /// 5 samples), in the same seeded order, with the others paused; its p50, p99 and p99.9
    /// from the moment each request was due. The rates are 50% and 90% of nginx's capacity for
    /// the workload, measured first by the same client in a closed loop (cases
    /// `<name>-50pct` and `<name>-90pct`, which `--case` names); without nginx, 20,000 a second (scaled by
    /// `--scale`). The floor runs `proxy-latency-1k` only: it answers every URL alike.
    private static func openLoop(
        _ context: BenchContext, name: String, workload: OpenLoadGenerator.Workload, servers: BenchServers,
        peers: [(String, Int)], floor: Int?, transport: AsyncHTTPClientTransport
    ) async throws {
        let seconds = context.scale < 1 ? 2 : 6
        let seed = UInt64.random(in: 0...UInt64.max)
        var loads: [(name: String, rate: Int, share: String?)] = [(name, max(100, Int(20_000 * context.scale)), nil)]
        if let nginx = peers.first(where: { $0.0 == "nginx" }) {
            _ = servers.runAlone(port: nginx.1)
            // The first pass fills nginx's cache; the second measures its hits and misses.
            _ = try OpenLoadGenerator.run(port: nginx.1, connections: 32, rate: 0, seconds: seconds / 2, workload: workload, seed: seed)
            let probe = try OpenLoadGenerator.run(port: nginx.1, connections: 32, rate: 0, seconds: seconds / 2, workload: workload, seed: seed &+ 1)
            servers.continueAll()
            let capacity = Double(probe.requests) / max(probe.seconds ?? Double(seconds / 2), 0.001)
            context.reporter.note("\(name): nginx answered \(Int(capacity)) requests/s in a closed loop of 32 connections (its capacity for the open-loop shares)")
            loads = offeredShares.map { ("\(name)-\($0)pct", max(100, Int(capacity) * $0 / 100), "\($0)% of nginx's capacity") }
        } else {
            context.reporter.note("\(name): nginx is not installed, so the offered load is a fixed rate, not a share of its capacity")
        }
        var targets = peers
        if workload == .hot, let floor { targets.append(("floor", floor)) }
        for (_, port) in targets where workload == .hot {
            for _ in 0..<2 { _ = try await transport.send(HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(port)", path: "/1k/1"), body: Data()) }
        }
        for load in loads where context.runs(load.name) {
            context.reporter.note("\(load.name): open-loop load of \(load.rate) requests/s over 32 connections, request order from seed \(seed)")
            var contenders: [AsyncContender] = []
            for (impl, port) in targets {
                contenders.append(AsyncContender(impl, prepare: { _ = servers.runAlone(port: port) }, measured: {
                    // Blocks this task for the run, as wrk's runs do: the servers are processes
                    // of their own, the origin on NIO's threads.
                    Measurement(load: try OpenLoadGenerator.run(port: port, connections: 32, rate: load.rate, seconds: seconds, workload: workload, seed: seed))
                }).counting(servers.cpu(port: port)))
            }
            defer { servers.continueAll() }
            var extra = ["client": "open loop", "connections": "32", "offered": "\(load.rate)"]
            if let share = load.share { extra["share"] = share }
            try await context.compareAsync(suite: suite, case: load.name, contenders, extra: extra)
        }
    }
}
