import Foundation
import HTTPTypes
import HummingbirdCore
public import Logging
import NIOCore
import NIOPosix
import StashHTTP

/// What an operator does to a running proxy: purge what its cache keeps, read its metrics.
extension HTTPCachingProxy {
    /// Forgets what the cache keeps for one URL (every variant), as clients ask for it.
    ///
    /// ```swift
    /// await proxy.purge("/news/today?lang=en")
    /// await proxy.purge("/", host: "www.example.com") // with virtual hosts
    /// ```
    ///
    /// Durability and threads as ``/StashHTTP/HTTPCache/removeResponses(for:)``: safe from any
    /// task; with shared storage it returns once the removal is in the storage.
    ///
    /// - parameters:
    ///   - path: The path and query, in origin form (`/…`).
    ///   - host: With ``Configuration/virtualHosts``, the host name the URL belongs to.
    /// - returns: `false` when `path` is not in origin form, or `host` is not served.
    @discardableResult
    public func purge(_ path: String, host: String? = nil) async -> Bool {
        guard let (authority, path) = purgeTarget(path, host: host) else { return false }
        cache.removeResponses(for: HTTPRequest(method: .get, scheme: "http", authority: authority, path: path))
        if cache.sharedStorage != nil { try? await cache.flush() }
        return true
    }

    /// Forgets what the cache keeps for every URL whose path starts with `prefix` (every
    /// variant), as ``/StashHTTP/HTTPCache/removeResponses(withURLPrefix:)`` does.
    ///
    /// ```swift
    /// await proxy.purge(prefix: "/news/")
    /// ```
    ///
    /// Durability and threads as ``/StashHTTP/HTTPCache/removeResponses(withURLPrefix:)``.
    ///
    /// - returns: How many URLs were forgotten (`nil` with shared storage, which does not
    ///   say, or when `prefix` is not in origin form or `host` is not served).
    @discardableResult
    public func purge(prefix: String, host: String? = nil) async -> Int? {
        guard let (authority, path) = purgeTarget(prefix, host: host) else { return nil }
        return await cache.removeResponses(withURLPrefix: "http://\(authority)\(path)")
    }

    /// The cache key's authority and path for `path` asked for under `host`.
    private func purgeTarget(_ path: String, host: String?) -> (authority: String, path: String)? {
        let hosts: RequestAdmission.Hosts = host.map { .one($0) } ?? .none
        guard case .admit(let path, let authority) = admission.decide(method: .get, target: path, hosts: hosts, requiresHost: false) else { return nil }
        return cacheTarget(forPlain: authority, path: path)
    }

    /// Serves the operator's endpoints on a listener of their own, never on the public one,
    /// until the surrounding task is cancelled:
    ///
    /// - `GET /metrics`: `metrics()`, as Prometheus text (`404` without `metrics`);
    /// - `POST /purge?path=/a/b`: forgets one URL (``purge(_:host:)``);
    /// - `POST /purge?prefix=/a/`: forgets every URL under a prefix (``purge(prefix:host:)``);
    ///   both take `&host=name` with virtual hosts, and answer `200` with `purged N` (`N` the
    ///   URLs forgotten, `?` where the storage does not say), or `400`.
    ///
    /// ```swift
    /// let registry = PrometheusCollectorRegistry()
    /// MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry)) // before the proxy is created
    /// try await proxy.runAdmin(port: 9090, metrics: { registry.emitToString() })
    /// ```
    ///
    /// Bind it to a loopback or private address: anyone who reaches it can empty the cache.
    ///
    /// - parameters:
    ///   - host: The address to listen on.
    ///   - port: The port; 0 picks a free one, reported to `onRunning`.
    ///   - metrics: The metrics text, such as a swift-prometheus registry's.
    ///   - logger: Where the server reports connection errors.
    ///   - onRunning: Called once with the bound port.
    /// - throws: When the address cannot be bound.
    public func runAdmin(
        host: String = "127.0.0.1", port: Int, metrics: (@Sendable () -> String)? = nil,
        logger: Logger = Logger(label: "stash.http-proxy.admin"), onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws {
        let server = try HTTPServerBuilder.http1().buildServer(
            configuration: ServerConfiguration(address: .hostname(host, port: port)),
            eventLoopGroup: NIOSingletons.posixEventLoopGroup,
            logger: logger,
            responder: { request, writer, _ in
                for try await _ in request.body {}
                let (status, text) = await self.adminAnswer(to: request.head, metrics: metrics)
                var fields = HTTPFields()
                fields[.contentType] = status == .ok && text.hasPrefix("#") ? "text/plain; version=0.0.4; charset=utf-8" : "text/plain; charset=utf-8"
                fields[.contentLength] = String(text.utf8.count)
                try await writer.write(response: HTTPResponse(status: status, headerFields: fields), body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
            },
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) }
        )
        try await GracefulShutdown.run(server, logger: logger)
    }

    /// The status and text of the admin endpoint `request` names.
    private func adminAnswer(to request: HTTPRequest, metrics: (@Sendable () -> String)?) async -> (HTTPResponse.Status, String) {
        guard let components = URLComponents(string: "http://admin" + (request.path ?? "/")) else { return (.badRequest, "bad request\n") }
        let query = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
        switch (components.path, request.method) {
        case ("/metrics", .get), ("/metrics", .head):
            guard let metrics else { return (.notFound, "no metrics backend\n") }
            return (.ok, metrics())
        case ("/purge", .post):
            if let path = query["path"] {
                return await purge(path, host: query["host"]) ? (.ok, "purged 1\n") : (.badRequest, "not a path this proxy serves\n")
            }
            if let prefix = query["prefix"] {
                guard purgeTarget(prefix, host: query["host"]) != nil else { return (.badRequest, "not a path this proxy serves\n") }
                let count = await purge(prefix: prefix, host: query["host"])
                return (.ok, "purged \(count.map(String.init) ?? "?")\n")
            }
            return (.badRequest, "give path= or prefix=\n")
        case ("/metrics", _), ("/purge", _):
            return (.methodNotAllowed, "method not allowed\n")
        default:
            return (.notFound, "not found\n")
        }
    }
}
