import Foundation
import Hummingbird
import Logging
import PostgresNIO
import StashCore
import StashHTTP
import StashHTTPAsyncClient
import StashHTTPServer
import StashToolSupport

/// What one proxy case (`http` and `shared` suites) starts: an origin on 127.0.0.1, the
/// proxies in front of it, nginx, HTTP and PostgreSQL clients, caches. Each is registered
/// as it starts, and ``stop()`` ends them all, the last started first, whether the case
/// finished or failed, so a failing case reports its error instead of tripping a client's
/// "not shut down" precondition or leaving servers running.
///
/// ```swift
/// try await BenchServers.run(logger: logger) { servers in
///     let origin = try await servers.startOrigin(payloads: [("1k", 1024)])
///     let port = try await servers.start(HTTPCachingProxy(upstream: URL(string: "http://127.0.0.1:\(origin)")!, cache: cache))
///     let transport = servers.transport(timeout: .seconds(30))
///     …
/// }
/// ```
final class BenchServers {
    let logger: Logger
    private var stops: [() async throws -> Void] = []
    private var stashProxies: [Int: Int32] = [:]
    /// The processes of each server process the group started, by port.
    private var serverProcesses: [Int: () -> [Int32]] = [:]
    private var paused: Set<Int32> = []

    private init(logger: Logger) { self.logger = logger }

    /// Runs `body` with a new group and stops everything it started once `body` returns or
    /// throws; `body`'s error comes first, then the first error of stopping.
    static func run<T>(logger: Logger, _ body: (BenchServers) async throws -> T) async throws -> T {
        let servers = BenchServers(logger: logger)
        let result: T
        do {
            result = try await body(servers)
        } catch {
            try? await servers.stop()
            throw error
        }
        try await servers.stop()
        return result
    }

    /// Starts a Hummingbird origin on a free port whose `GET /NAME/{id}` answers `size` bytes
    /// of `a`, fresh for an hour (`Cache-Control: max-age=3600`); answers its port.
    func startOrigin(payloads: [(name: String, size: Int)]) async throws -> Int {
        let router = Router()
        for (name, size) in payloads {
            let payload = ByteBuffer(repeating: 0x61, count: size)
            router.get("/\(name)/{id}") { _, _ -> Response in
                var response = Response(status: .ok, body: ResponseBody(byteBuffer: payload))
                response.headers[.cacheControl] = "max-age=3600"
                return response
            }
        }
        let responder = router.buildResponder()
        let logger = logger
        let origin = try await ListeningServer.start("origin") { listening in
            let application = Application(responder: responder, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
                                          onServerRunning: { listening($0.localAddress?.port ?? 0) }, logger: logger)
            try await GracefulShutdown.run(application, logger: logger)
        }
        stops.append { await Self.end(origin.task) }
        return origin.port
    }

    /// Starts `proxy` on a free port of 127.0.0.1; answers its port. Stopping ends its
    /// server, then shuts down its upstream client.
    func start(_ proxy: HTTPCachingProxy) async throws -> Int {
        let logger = logger
        let server = try await ListeningServer.start("proxy") { listening in
            try await proxy.run(port: 0, logger: logger) { listening($0) }
        }
        stops.append {
            await Self.end(server.task)
            try await proxy.shutdown()
        }
        return server.port
    }

    /// nginx caching `origin` in at most `cacheBytes` (see
    /// ``NginxPeer/startIfInstalled(origin:folder:role:context:for:)``), stopped with the group.
    func startNginx(
        origin: Int, folder: URL, cacheBytes: Int = BenchServers.cacheBytes, sendfile: Bool = true, context: BenchContext, for name: String
    ) throws -> NginxPeer? {
        let nginx = try NginxPeer.startIfInstalled(
            origin: "127.0.0.1:\(origin)", folder: folder, role: .proxy(cacheBytes: cacheBytes, sendfile: sendfile), context: context, for: name
        )
        if let nginx {
            stops.append { nginx.stop() }
            serverProcesses[nginx.port] = { nginx.processes }
        }
        return nginx
    }

    /// Varnish caching `origin` (see ``VarnishPeer/startIfInstalled(origin:folder:context:for:)``),
    /// stopped with the group.
    func startVarnish(origin: Int, folder: URL, context: BenchContext, for name: String) throws -> VarnishPeer? {
        let varnish = try VarnishPeer.startIfInstalled(origin: "127.0.0.1:\(origin)", folder: folder, context: context, for: name)
        if let varnish {
            stops.append { varnish.stop() }
            serverProcesses[varnish.port] = { varnish.processes }
        }
        return varnish
    }

    /// The floor of the hit cases for bodies of `bodyBytes`, stopped with the group; answers
    /// its port: nginx answering a constant body (``NginxPeer/Role/floor(bodyBytes:)``) when
    /// nginx is installed, else ``FloorPeer``.
    func startFloor(bodyBytes: Int, folder: URL) throws -> Int {
        if let executable = NginxPeer.executable {
            let floorFolder = folder.appendingPathComponent("nginx-\(bodyBytes)", isDirectory: true)
            try FileManager.default.createDirectory(at: floorFolder, withIntermediateDirectories: true)
            let nginx = try NginxPeer(executable: executable, origin: "", folder: floorFolder, role: .floor(bodyBytes: bodyBytes))
            stops.append { nginx.stop() }
            serverProcesses[nginx.port] = { nginx.processes }
            return nginx.port
        }
        let floor = try FloorPeer(bodyBytes: bodyBytes, folder: folder)
        stops.append { floor.stop() }
        serverProcesses[floor.port] = { floor.processes }
        return floor.port
    }

    /// The disk cache of a proxy in the hit cases (`stash http-proxy`'s default size, and
    /// nginx's `max_size`): 256 MiB. The large-body cases give both eight bodies.
    static let cacheBytes = 256 << 20

    /// Stash's caching proxy in front of `origin`, named `name`: `stash http-proxy` in a
    /// process of its own (``StashProxyPeer``) when it was built beside the bench, else
    /// `HTTPCachingProxy` in this process with the same settings (and a note saying so).
    /// Answers its port; stopped with the group.
    func startStashProxy(_ name: String, origin: Int, folder: URL, diskCapacity: Int? = nil, context: BenchContext) async throws -> Int {
        if let executable = StashProxyPeer.executable {
            let peer = try StashProxyPeer(name, executable: executable, origin: "127.0.0.1:\(origin)", folder: folder, diskCapacity: diskCapacity)
            stops.append { peer.stop() }
            stashProxies[peer.port] = peer.processIdentifier
            serverProcesses[peer.port] = { peer.processes }
            return peer.port
        }
        context.reporter.note("\(name): Stash's proxy runs inside the bench (build `stash` beside `stash-bench` for a process of its own)")
        let disk = diskCapacity ?? BenchServers.cacheBytes
        let cache = closing(try HTTPCache(
            memoryCapacity: 32 << 20, diskCapacity: disk, directory: disk == 0 ? nil : folder.appendingPathComponent("cache"), mode: .shared
        ))
        return try await start(HTTPCachingProxy(upstream: URL(string: "http://127.0.0.1:\(origin)")!, cache: cache))
    }

    /// Whose CPU time the server listening on `port` costs: its processes, or `nil` when it
    /// runs inside the bench (its time cannot be told apart from the client's).
    func cpu(port: Int) -> WorkingProcesses? { serverProcesses[port].map(WorkingProcesses.processes) }

    /// The process identifier of the Stash proxy process listening on `port`, or `nil` when
    /// it runs inside the bench.
    func stashProxyProcess(port: Int) -> Int32? { stashProxies[port] }

    /// An HTTP client for the case, shut down with the group.
    func transport(timeout: TimeAmount) -> AsyncHTTPClientTransport {
        let transport = AsyncHTTPClientTransport(timeout: timeout)
        stops.append { try await transport.shutdown() }
        return transport
    }

    /// Runs `client`'s connection pool until the group stops.
    func run(_ client: PostgresClient) {
        let task = Task { await client.run() }
        stops.append { await Self.end(task) }
    }

    /// `cache`, closed with the group (after the proxies started later have stopped).
    func closing(_ cache: HTTPCache) -> HTTPCache {
        stops.append { try cache.close() }
        return cache
    }

    /// Leaves the server process listening on `port` alone on the servers' CPUs: every other
    /// server process of the group is paused (`SIGSTOP`, its workers and children too) and
    /// that one continued, so that another proxy's timers and housekeeping never run during
    /// its measurement. Returns `false`, with everything continued, when a process cannot be
    /// signalled (nginx's workers run as another user and the bench is not privileged): the
    /// servers then all run, as they would without this.
    func runAlone(port: Int) -> Bool {
        for (other, processes) in serverProcesses where other != port {
            for process in processes() where !paused.contains(process) {
                guard kill(process, SIGSTOP) == 0 else {
                    continueAll()
                    return false
                }
                paused.insert(process)
            }
        }
        for process in serverProcesses[port]?() ?? [] where paused.contains(process) {
            kill(process, SIGCONT)
            paused.remove(process)
        }
        return true
    }

    /// Continues every server process ``runAlone(port:)`` paused.
    func continueAll() {
        for process in paused { kill(process, SIGCONT) }
        paused.removeAll()
    }

    /// Stops everything started, the last first; every stop runs, and the first error is
    /// thrown after them. Paused servers are continued first, so that they take their signal.
    func stop() async throws {
        continueAll()
        var first: (any Error)?
        while let stop = stops.popLast() {
            do { try await stop() } catch { first = first ?? error }
        }
        if let first { throw first }
    }

    private static func end<T>(_ task: Task<T, any Error>) async {
        task.cancel()
        _ = try? await task.value
    }

    private static func end(_ task: Task<Void, Never>) async {
        task.cancel()
        await task.value
    }
}
