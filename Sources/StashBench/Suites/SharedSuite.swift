import Foundation
import HTTPTypes
import Hummingbird
import Logging
import PostgresNIO
import StashCore
import StashHTTP
import StashHTTPAsyncClient
import StashHTTPServer
import StashPostgres
import StashPostgresHTTP

/// `stash-bench shared`: `SharedCache` get and set of 1 KB values at 1, 8 and 32 concurrent
/// tasks against the floor, a hand-written postgres-nio client running the same `SELECT` and
/// `INSERT … ON CONFLICT` as prepared statements on a plain key/value table, one statement per
/// operation (`postgres-raw`, naive) or batched as `SharedCache` batches
/// (``PostgresBatchedPeer``, `postgres-batched`), on the same server in the same run; and `proxy-hit-1k-c32`: cache hits through two `HTTPCachingProxy`s
/// sharing one `SharedCache` table (`shared-2-proxies`) against one proxy with its local disk
/// cache (`disk-1-proxy`). Needs `STASH_POSTGRES_URL` (`Scripts/postgres.sh start`).
enum SharedSuite {
    static let suite = "shared"

    @Sendable static func run(_ context: BenchContext) async throws {
        guard let url = ProcessInfo.processInfo.environment["STASH_POSTGRES_URL"], !url.isEmpty else {
            context.reporter.note("shared: skipped, STASH_POSTGRES_URL is not set (start a server with `Scripts/postgres.sh start` and export the URL it prints)")
            return
        }
        var configuration = try SharedCache.clientConfiguration(url: url)
        configuration.options.additionalStartupParameters = [("search_path", "stash_bench")]
        configuration.options.maximumConnections = 32
        configuration.options.minimumConnections = 32
        let cacheClient = PostgresClient(configuration: configuration)
        let rawClient = PostgresClient(configuration: configuration)
        let batchedClient = PostgresClient(configuration: configuration)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await cacheClient.run() }
            group.addTask { await rawClient.run() }
            group.addTask { await batchedClient.run() }
            defer { group.cancelAll() }
            try await rawClient.query("DROP SCHEMA IF EXISTS stash_bench CASCADE")
            try await rawClient.query("CREATE SCHEMA stash_bench")
            try await rawClient.query("CREATE TABLE stash_bench.bench_kv (k text PRIMARY KEY, v bytea NOT NULL)")
            let cache = SharedCache(client: cacheClient)
            try await cache.migrate()
            try await measure(context, cache: cache, raw: rawClient, batched: PostgresBatchedPeer(client: batchedClient))
            try await rawClient.query("DROP SCHEMA stash_bench CASCADE")
            try await rawClient.query("CREATE SCHEMA stash_bench")
            if context.runs("proxy-hit-1k-c32") { try await proxyHit(context, configuration: configuration) }
            try await rawClient.query("DROP SCHEMA stash_bench CASCADE")
        }
    }

    private static func measure(_ context: BenchContext, cache: SharedCache, raw: PostgresClient, batched: PostgresBatchedPeer) async throws {
        let keyCount = 1_000
        let value = Data(repeating: 0x61, count: 1024)
        let buffer = ByteBuffer(bytes: value)
        let keys = (0..<keyCount).map { "bench/item/\($0)" }
        for key in keys {
            try await cache.set(value, forKey: key)
            try await raw.execute(RawSet(key: key, value: buffer)).drainRows()
        }
        let operations = context.scaled(2_000)
        for concurrency in [1, 8, 32] {
            for kind in ["get", "set"] {
                let name = "\(kind)-c\(concurrency)"
                guard context.runs(name) else { continue }
                let impls = ["stash", "postgres-batched", "postgres-raw"]
                let latencies = Dictionary(uniqueKeysWithValues: impls.map { ($0, LockedValue([Double]())) })
                let operation: [String: @Sendable (Int) async throws -> Void]
                if kind == "get" {
                    operation = [
                        "stash": { index in _ = try await cache.value(forKey: keys[index % keyCount]) },
                        "postgres-batched": { index in _ = try await batched.value(forKey: keys[index % keyCount]) },
                        "postgres-raw": { index in try await raw.execute(RawGet(key: keys[index % keyCount])).drainRows() },
                    ]
                } else {
                    operation = [
                        "stash": { index in try await cache.set(value, forKey: keys[index % keyCount]) },
                        "postgres-batched": { index in try await batched.set(buffer, forKey: keys[index % keyCount]) },
                        "postgres-raw": { index in try await raw.execute(RawSet(key: keys[index % keyCount], value: buffer)).drainRows() },
                    ]
                }
                try await context.compareAsync(suite: suite, case: name, impls.map { impl in
                    // The client's time in the bench and the server's in its backends.
                    AsyncContender(impl) { try await run(operations, concurrency: concurrency, latencies: latencies[impl]!, operation[impl]!) }
                        .counting(.thisProcess(and: { WorkingProcesses.named("postgres") }))
                }, extra: ["value-bytes": "1024", "tasks": "\(concurrency)"])
                for impl in impls {
                    let sorted = latencies[impl]!.withLock { $0 }.sorted()
                    guard !sorted.isEmpty else { continue }
                    context.reporter.note("shared \(name) \(impl): p50 \(milliseconds(sorted, quantile: 0.50)) ms, p99 \(milliseconds(sorted, quantile: 0.99)) ms over \(sorted.count) operations")
                }
            }
        }
        let stats = cache.statistics
        context.reporter.note("shared: stash hits \(stats.hits), misses \(stats.misses), errors \(stats.errors)")
    }

    /// Hits of one 1 KB response through two proxies on one `SharedCache` table (each with
    /// its own connection pool, as two processes would have; half the connections each)
    /// against one proxy on its local disk cache, all in front of one origin.
    private static func proxyHit(_ context: BenchContext, configuration: PostgresClient.Configuration) async throws {
        let scratch = try context.makeScratch("shared-proxy")
        defer { context.removeScratch(scratch) }
        var logger = Logger(label: "bench-shared-proxy")
        logger.logLevel = .warning
        try await BenchServers.run(logger: logger) { servers in
            let originPort = try await servers.startOrigin(payloads: [("1k", 1024)])
            let upstream = URL(string: "http://127.0.0.1:\(originPort)")!
            // Half the connections each, beside the two clients of the get/set cases (a
            // default server takes 100 connections).
            var proxyConfiguration = configuration
            proxyConfiguration.options.maximumConnections = 16
            proxyConfiguration.options.minimumConnections = 16
            let clients = [PostgresClient(configuration: proxyConfiguration), PostgresClient(configuration: proxyConfiguration)]
            for client in clients { servers.run(client) }
            let sharedCaches = clients.map { SharedCache(client: $0) }
            try await sharedCaches[0].migrate()
            let disk = servers.closing(try HTTPCache(
                memoryCapacity: 0, diskCapacity: 64 << 20, directory: scratch.appendingPathComponent("disk"), mode: .shared
            ))
            var ports: [Int] = []
            for cache in sharedCaches.map({ HTTPCache(sharedStorage: $0) }) + [disk] {
                ports.append(try await servers.start(HTTPCachingProxy(upstream: upstream, cache: cache)))
            }
            let transport = servers.transport(timeout: .seconds(30))
            try await measureProxyHit(context, ports: ports, transport: transport, sharedCaches: sharedCaches)
        }
    }

    /// The measured part of ``proxyHit(_:configuration:)``: `ports` are the two shared
    /// proxies, then the one on its disk cache.
    private static func measureProxyHit(
        _ context: BenchContext, ports: [Int], transport: AsyncHTTPClientTransport, sharedCaches: [SharedCache]
    ) async throws {
        let load = LoadGenerator()
        let seconds = context.scale < 1 ? 1 : 2
        let path = "/1k/1"
        // Primes: a miss through the first proxy stores the response for both shared ones.
        for port in [ports[0], ports[2], ports[2]] {
            _ = try await transport.send(HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(port)", path: path), body: Data())
        }
        let contenders = [("shared-2-proxies", [ports[0], ports[1]], 16), ("disk-1-proxy", [ports[2]], 32)].map { impl, targets, connections in
            AsyncContender(impl, measured: {
                let run = try await load.run(urls: targets.map { "http://127.0.0.1:\($0)\(path)" }, connections: connections, seconds: seconds, transport: transport)
                return Measurement(load: run)
            })
            // The proxies share the bench's process with the client.
            .counting(nil)
        }
        try await context.compareAsync(suite: suite, case: "proxy-hit-1k-c32", contenders, extra: ["client": load.name, "connections": "32"])
        let stats = sharedCaches.map(\.statistics)
        context.reporter.note("shared proxy-hit: the shared caches answered \(stats.map(\.hits)) hits, \(stats.map(\.misses)) misses, \(stats.map(\.errors)) errors")
    }

    /// Runs `operations` calls of `body` spread over `concurrency` tasks; records each latency.
    private static func run(
        _ operations: Int, concurrency: Int, latencies: LockedValue<[Double]>, _ body: @escaping @Sendable (Int) async throws -> Void
    ) async throws -> Int {
        try await withThrowingTaskGroup(of: [Double].self) { group in
            for task in 0..<concurrency {
                group.addTask {
                    var own = [Double]()
                    own.reserveCapacity(operations / concurrency + 1)
                    var index = task
                    while index < operations {
                        let start = DispatchTime.now().uptimeNanoseconds
                        try await body(index)
                        own.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)   // seconds, as milliseconds(_:quantile:) takes them
                        index += concurrency
                    }
                    return own
                }
            }
            for try await own in group { latencies.withLock { $0.append(contentsOf: own) } }
        }
        return operations
    }

}

/// The floor's read: a prepared `SELECT` on a plain key/value table.
private struct RawGet: PostgresPreparedStatement {
    static let sql = "SELECT v FROM bench_kv WHERE k = $1"
    typealias Row = ByteBuffer
    var key: String
    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(key)
        return bindings
    }
    func decodeRow(_ row: PostgresRow) throws -> ByteBuffer { try row.decode(ByteBuffer.self) }
}

/// The floor's write: a prepared upsert.
private struct RawSet: PostgresPreparedStatement {
    static let sql = "INSERT INTO bench_kv (k, v) VALUES ($1, $2) ON CONFLICT (k) DO UPDATE SET v = excluded.v"
    typealias Row = Void
    var key: String
    var value: ByteBuffer
    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 2)
        bindings.append(key)
        bindings.append(value)
        return bindings
    }
    func decodeRow(_ row: PostgresRow) throws {}
}

extension AsyncSequence {
    /// Reads a statement's rows to the end, so that its connection goes back to the pool.
    func drainRows() async throws {
        for try await _ in self {}
    }
}
