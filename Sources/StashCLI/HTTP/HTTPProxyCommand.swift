import ArgumentParser
import Foundation
import Stash
import StashHTTP
import StashHTTPServer

/// `stash http-proxy`: a caching reverse proxy in front of one origin.
struct HTTPProxyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "http-proxy",
        abstract: "Run a caching reverse proxy (RFC 9111) in front of one upstream origin.",
        discussion: """
        Every method and end-to-end field is forwarded; responses are cached as a shared cache by default (--private for a private one). Responses carry a Cache-Status field. Slow or idle clients are disconnected, a stalled upstream gives 504, and client connections and request bodies are capped (see the timeout, --max-connections and --max-body-size options).

        Only the upstream is ever reached: request targets that are not paths (or absolute URLs naming the upstream), malformed or duplicate Host fields, and HTTP/1.1 requests without Host get 400. Responses are cached under the upstream's name whatever Host a client sends, unless --virtual-host names the hosts it serves.

        With --shared-cache postgres://user@host/db several proxy processes share one cache in PostgreSQL (table stash_cache): a response stored through one is a hit on all, and an unsafe method through one invalidates for all. Nothing is cached locally then.

        Example: stash http-proxy --listen 127.0.0.1:8080 --upstream http://127.0.0.1:8000 --access-log --admin-listen 127.0.0.1:9090
        """
    )

    @Option(name: .long, help: "Address to listen on, HOST:PORT (port 0 picks a free one).")
    var listen = "127.0.0.1:8080"

    @Option(name: .long, help: "The origin, such as http://127.0.0.1:8000.")
    var upstream: String

    @Flag(name: .long, help: "Cache as a shared cache (the default).")
    var shared = false

    @Flag(name: .customLong("private"), help: "Cache as a private cache.")
    var isPrivate = false

    @Option(name: .long, help: "Bytes of responses kept in memory.")
    var memoryCapacity = 32 << 20

    @Option(name: .long, help: "Bytes of responses kept on disk (0: memory only); one response body may take an eighth of it, larger ones pass through unstored.")
    var diskCapacity = 256 << 20

    @Option(name: .long, help: "Seconds a client has to send a whole request head once it started (default 30).")
    var headerTimeout = 30.0

    @Option(name: .long, help: "Seconds a client connection may stay without a request before it is closed (default 75).")
    var idleTimeout = 75.0

    @Option(name: .long, help: "Seconds the upstream may go without sending a byte before the client gets 504 (default 60).")
    var upstreamReadTimeout = 60.0

    @Option(name: .long, help: "Seconds a client may leave the proxy unable to send (it stopped reading) before it is closed (default 60).")
    var sendTimeout = 60.0

    @Option(name: .long, help: "Most client connections open at once; past it new ones are accepted and closed (0: no limit; default 1024).")
    var maxConnections = 1024

    @Option(name: .long, help: "Largest request body in bytes; a larger one gets 413 (default 64 MiB).")
    var maxBodySize = 64 << 20

    @Option(name: .long, help: "Seconds a client may go without sending a byte of a request body before it is closed (default 30).")
    var bodyTimeout = 30.0

    @Option(name: .customLong("virtual-host"), help: ArgumentHelp(
        "A host name the upstream serves (repeat for several): responses are then cached per host name, requests for other names get 400, and the name is sent upstream as Host.",
        valueName: "name"
    ))
    var virtualHosts: [String] = []

    @Flag(name: .long, help: "Write a line per request to standard output: METHOD TARGET STATUS BYTES SECONDS CACHE.")
    var accessLog = false

    @Option(name: .long, help: ArgumentHelp(
        "Serve GET /metrics (Prometheus text) and POST /purge?path=/a or ?prefix=/a/ (&host=name with --virtual-host) on this address, never on the public one (default: off).",
        valueName: "host:port"
    ))
    var adminListen: String?

    @Option(name: .long, help: ArgumentHelp(
        "Keep responses in PostgreSQL, shared with every proxy given the same URL (no local cache then).",
        discussion: "postgres://user:password@host:port/database?sslmode=disable&options=-c%20search_path%3Dproxy",
        valueName: "url"
    ))
    var sharedCache: String?

    @Option(name: .long, help: "Seconds a shared-cache operation may take before the request goes to the upstream without it (default 1).")
    var sharedCacheTimeout = 1.0

    @Option(name: .long, help: "Bytes of responses the shared cache keeps (default 256 MiB).")
    var sharedCacheCapacity = 256 << 20

    @OptionGroup var sandbox: SandboxOptions

    func validate() throws {
        if shared && isPrivate { throw ValidationError("--shared and --private exclude each other") }
        if memoryCapacity < 0 || diskCapacity < 0 { throw ValidationError("capacities must be zero or more bytes") }
        for (name, seconds) in [("--header-timeout", headerTimeout), ("--idle-timeout", idleTimeout), ("--upstream-read-timeout", upstreamReadTimeout),
                              ("--send-timeout", sendTimeout), ("--body-timeout", bodyTimeout)]
        where !(seconds > 0 && seconds <= 86_400) {
            throw ValidationError("\(name) must be more than 0 and at most 86400 seconds, got \(seconds)")
        }
        if maxBodySize < 0 { throw ValidationError("--max-body-size must be zero or more bytes, got \(maxBodySize)") }
        for name in virtualHosts where Authority(name) == nil || name.contains(":") {
            throw ValidationError("--virtual-host must be a host name without a port, got '\(name)'")
        }
        if maxConnections < 0 { throw ValidationError("--max-connections must be zero (no limit) or more, got \(maxConnections)") }
        if !(sharedCacheTimeout > 0 && sharedCacheTimeout <= 3600) {
            throw ValidationError("--shared-cache-timeout must be more than 0 and at most 3600 seconds, got \(sharedCacheTimeout)")
        }
        if sharedCacheCapacity <= 0 { throw ValidationError("--shared-cache-capacity must be more than 0 bytes, got \(sharedCacheCapacity)") }
    }

    func run() async throws {
        ProcessorAffinity.sizeEventLoops()
        guard let upstreamURL = URL(string: upstream), upstreamURL.scheme == "http" || upstreamURL.scheme == "https",
              upstreamURL.host != nil else {
            throw ValidationError("--upstream must be an http(s) URL, got '\(upstream)'")
        }
        guard let (host, port) = Self.address(listen) else { throw ValidationError("--listen must be HOST:PORT, got '\(listen)'") }
        let admin = try adminListen.map { value in
            guard let address = Self.address(value) else { throw ValidationError("--admin-listen must be HOST:PORT, got '\(value)'") }
            return address
        }
        // Before anything creates a metric: the proxy's and the shared cache's counters.
        let registry = admin == nil ? nil : Self.bootstrapPrometheus()
        let mode: HTTPCacheMode = isPrivate ? .private : .shared
        let configuration = HTTPCachingProxy.Configuration(
            headerTimeout: .milliseconds(Int64(headerTimeout * 1000)), idleTimeout: .milliseconds(Int64(idleTimeout * 1000)),
            upstreamReadTimeout: .milliseconds(Int64(upstreamReadTimeout * 1000)),
            sendTimeout: .milliseconds(Int64(sendTimeout * 1000)),
            maximumConnections: maxConnections == 0 ? nil : maxConnections,
            maximumRequestBodySize: maxBodySize, requestBodyTimeout: .milliseconds(Int64(bodyTimeout * 1000)),
            virtualHosts: Set(virtualHosts)
        )
        if let sharedCache {
            try await runOnSharedCache(
                sharedCache, host: host, port: port, upstream: upstreamURL, mode: mode, configuration: configuration,
                admin: admin.map { ($0.host, $0.port, registry) }
            )
            return
        }
        let directory = diskCapacity == 0 ? nil
            : try sandbox.sandbox().url(for: .caches).appendingPathComponent("HTTPProxyCache", isDirectory: true)
        let cache = try HTTPCache(memoryCapacity: memoryCapacity, diskCapacity: diskCapacity, directory: directory, mode: mode)
        let proxy = HTTPCachingProxy(upstream: upstreamURL, cache: cache, configuration: configuration)
        try await serve(proxy, host: host, port: port, admin: admin.map { ($0.host, $0.port, registry) }) { bound in
            var banner = "stash http-proxy: \(mode) cache, listening on http://\(host):\(bound), upstream \(upstreamURL.absoluteString)\n"
            if let directory { banner += "cache folder: \(directory.path)\n" }
            return banner
        }
        try await proxy.shutdown()
    }
}
