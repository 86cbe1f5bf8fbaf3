import Foundation
import HTTPTypes
import Logging
import Metrics
import StashHTTP

/// What the proxy reports of each request it answers: swift-metrics counters, and an access
/// log line when the server was given an access log.
///
/// Metrics (through the process's swift-metrics backend, bootstrapped before the proxy is
/// created: `stash http-proxy --admin-listen` bootstraps Prometheus):
/// - `stash_proxy_requests_total{cache="hit|miss|revalidated|stale|unavailable|refused|error"}`
/// - `stash_proxy_response_bytes_total`: body bytes sent to clients
/// - `stash_proxy_upstream_seconds`: a timer, from sending a request upstream to its response head
/// - `stash_proxy_open_connections`: a meter of client connections open now
///
/// The access log has one line per request, at `info` level, in this format (fields
/// separated by one space, the target as the client sent it):
///
///     METHOD TARGET STATUS BYTES SECONDS CACHE
///     GET /a/b?c=d 200 5120 0.000213 hit
///
/// `BYTES` counts the body sent, `SECONDS` runs from the request's head to the response's
/// last byte (for a hit answered on the event loop, the lookup and the write), and `CACHE`
/// is one of the `cache` values above.
struct RequestReport: Sendable {
    /// How a request was answered: the `cache` dimension and the log's last field.
    enum Outcome: String, Sendable, CaseIterable {
        case hit, miss, revalidated, stale, unavailable, refused, error

        init(_ outcome: HTTPCacheOutcome) {
            switch outcome {
            case .cache: self = .hit
            case .network: self = .miss
            case .revalidated: self = .revalidated
            case .staleAfterNetworkFailure: self = .stale
            case .unavailable: self = .unavailable
            }
        }
    }

    private let requests: [Outcome: Counter]
    private let responseBytes: Counter
    let upstreamLatency: Metrics.Timer
    let openConnections: Meter
    /// Where access log lines go; `nil`: none are written.
    let accessLog: Logger?

    /// Creates the metrics through `factory` (the process's swift-metrics backend by default).
    init(accessLog: Logger?, factory: (any MetricsFactory)? = nil) {
        self.accessLog = accessLog
        let factory = factory ?? MetricsSystem.factory
        requests = Dictionary(uniqueKeysWithValues: Outcome.allCases.map {
            ($0, Counter(label: "stash_proxy_requests_total", dimensions: [("cache", $0.rawValue)], factory: factory))
        })
        responseBytes = Counter(label: "stash_proxy_response_bytes_total", factory: factory)
        upstreamLatency = Metrics.Timer(label: "stash_proxy_upstream_seconds", preferredDisplayUnit: .seconds, factory: factory)
        openConnections = Meter(label: "stash_proxy_open_connections", factory: factory)
    }

    /// Records one answered request; `started` is when its head was read (`nil`: now).
    func record(
        method: HTTPRequest.Method, target: String, status: Int, bytes: Int, outcome: Outcome, started: ContinuousClock.Instant?
    ) {
        requests[outcome]?.increment()
        if bytes > 0 { responseBytes.increment(by: bytes) }
        guard let accessLog else { return }
        let seconds = started.map { Self.seconds(ContinuousClock.now - $0) } ?? 0
        accessLog.info("\(method.rawValue) \(Self.printable(target)) \(status) \(bytes) \(String(format: "%.6f", seconds)) \(outcome.rawValue)")
    }

    private static func seconds(_ duration: Duration) -> Double { Double(duration.nanoseconds) / 1e9 }

    /// `target` with spaces and control bytes escaped, so that a line always has six fields.
    private static func printable(_ target: String) -> String {
        guard target.utf8.contains(where: { $0 <= 0x20 || $0 >= 0x7F }) else { return target }
        return target.utf8.map { $0 <= 0x20 || $0 >= 0x7F ? String(format: "%%%02X", $0) : String(UnicodeScalar($0)) }.joined()
    }
}

extension Duration {
    /// The duration in whole nanoseconds, as swift-metrics timers take it.
    var nanoseconds: Int64 { components.seconds &* 1_000_000_000 &+ components.attoseconds / 1_000_000_000 }
}
