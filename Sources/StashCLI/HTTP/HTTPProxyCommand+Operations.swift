import Foundation
import Logging
import Metrics
import Prometheus
import StashHTTPServer

/// `stash http-proxy`'s operator side: the access log, Prometheus metrics and the admin
/// listener (`--access-log`, `--admin-listen`).
extension HTTPProxyCommand {
    /// Where the admin listener binds, and the registry its `/metrics` reads.
    typealias Admin = (host: String, port: Int, registry: PrometheusCollectorRegistry?)

    /// `HOST:PORT` split at its last colon; `nil` when it is not one.
    static func address(_ text: String) -> (host: String, port: Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port) else { return nil }
        return (String(text[..<colon]), port)
    }

    /// Makes Prometheus the process's swift-metrics backend, once, before any metric exists.
    static func bootstrapPrometheus() -> PrometheusCollectorRegistry {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return registry
    }

    /// Runs `proxy` on `host:port` and, with `admin`, its admin listener, until the task is
    /// cancelled; `banner` is what standard output gets once the proxy listens.
    func serve(
        _ proxy: HTTPCachingProxy, host: String, port: Int, admin: Admin?, banner: @escaping @Sendable (Int) -> String
    ) async throws {
        var accessLog: Logger?
        if self.accessLog {
            var logger = Logger(label: "stash.access", factory: { label in StreamLogHandler.standardOutput(label: label) })
            logger.logLevel = .info
            accessLog = logger
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            if let admin {
                var metrics: (@Sendable () -> String)?
                if let registry = admin.registry { metrics = { registry.emitToString() } }
                let text = metrics
                group.addTask {
                    try await proxy.runAdmin(host: admin.host, port: admin.port, metrics: text) { bound in
                        FileHandle.standardOutput.write(Data("admin (metrics, purge) on http://\(admin.host):\(bound)\n".utf8))
                    }
                }
            }
            try await proxy.run(host: host, port: port, accessLog: accessLog) { bound in
                FileHandle.standardOutput.write(Data(banner(bound).utf8))
            }
            group.cancelAll()
        }
    }
}
