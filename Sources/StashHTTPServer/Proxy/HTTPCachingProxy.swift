public import Foundation
public import HTTPTypes
import NIOCore
import Metrics
import StashCore
public import StashHTTP
public import StashHTTPAsyncClient
import StashHTTPWire

/// A caching reverse proxy: every request goes through an ``/StashHTTP/HTTPCache`` to one
/// upstream origin over AsyncHTTPClient.
///
/// ```swift
/// let cache = try HTTPCache(directory: folder, mode: .shared)
/// let proxy = HTTPCachingProxy(upstream: URL(string: "http://127.0.0.1:8000")!, cache: cache)
/// try await proxy.run(host: "127.0.0.1", port: 8080)
/// ```
///
/// Every method and every end-to-end field (multi-valued ones as separate lines) is
/// forwarded; hop-by-hop fields (RFC 9110 §7.6.1: `Connection` and the fields it names,
/// `Keep-Alive`, `TE`, `Transfer-Encoding`, `Upgrade`, `Proxy-Connection`, `Proxy-Authorization`)
/// are dropped both ways. Responses carry a `Cache-Status` field (RFC 9211). When the
/// origin cannot be reached and no stale response may stand in, the answer is
/// `502 Bad Gateway` (`504 Gateway Timeout` when it timed out), whose `Cache-Status` detail
/// names the cause. Slow or idle clients are disconnected, an upstream that stops sending is
/// cut, and client connections and request bodies are capped: see ``Configuration``.
///
/// The proxy reaches its upstream and nothing else, and a client cannot choose the entry
/// another client gets. Refused with `400 Bad Request`, never forwarded:
/// - a target not in origin form (`/path?query`), except an absolute-form target naming the
///   upstream (or, with ``Configuration/virtualHosts``, one of them), which is reduced to its
///   path; `OPTIONS *` is answered by the proxy itself; `CONNECT` (in any form) and `*@host/x` are
///   refused;
/// - a target with a dot segment (`/../`, `/%2e%2e/`, and `/..;x/`, which Tomcat, Jetty and
///   Spring read as `/../`), an escape of an escape of `.`, `/`, `\`, `;` or `%` (`%252e`), an
///   encoded NUL, a `#`, or a `%` that starts no escape;
/// - two `Host` fields, a `Host` that is not a host with an optional port, an HTTP/1.1
///   request without `Host`, or (with virtual hosts) a host name not among them.
///
/// Responses are cached under the upstream's authority, not the client's `Host`
/// (``Configuration/virtualHosts`` changes that), and `Location` / `Content-Location` values
/// naming the upstream reach clients as absolute paths. The upstream URL is built from parts
/// (scheme, host, port, path, query), never by joining strings. In a
/// ``/StashHTTP/HTTPCacheMode/shared`` cache a response that sets a cookie is not stored
/// (``/StashHTTP/HTTPCache``'s rule). Thread-safe.
public final class HTTPCachingProxy: Sendable {
    /// Where requests are forwarded: scheme, host, port and an optional path prefix.
    public let upstream: URL
    /// The cache in front of the upstream.
    public let cache: HTTPCache
    /// How requests reach the upstream.
    public let transport: AsyncHTTPClientTransport
    /// Timeouts and the connection cap.
    public let configuration: Configuration

    /// Creates a proxy.
    ///
    /// - parameters:
    ///   - upstream: The origin, such as `http://127.0.0.1:8000`.
    ///   - cache: Usually in ``/StashHTTP/HTTPCacheMode/shared`` mode.
    ///   - configuration: Timeouts and the connection cap.
    ///   - transport: The client used upstream; the proxy shuts it down in ``shutdown()``.
    ///     By default one whose read timeout is the configuration's ``Configuration/upstreamReadTimeout``.
    public convenience init(
        upstream: URL, cache: HTTPCache, configuration: Configuration = Configuration(),
        transport: AsyncHTTPClientTransport? = nil
    ) {
        self.init(upstream: upstream, cache: cache, configuration: configuration, transport: transport, answersHitsOnEventLoop: true)
    }

    init(
        upstream: URL, cache: HTTPCache, configuration: Configuration, transport: AsyncHTTPClientTransport?,
        answersHitsOnEventLoop: Bool, onEventLoopAnswer: (@Sendable () -> Void)? = nil,
        metricsFactory: (any MetricsFactory)? = nil
    ) {
        self.metricsFactory = metricsFactory
        self.answersHitsOnEventLoop = answersHitsOnEventLoop
        self.onEventLoopAnswer = onEventLoopAnswer
        self.upstream = upstream
        self.cache = cache
        self.configuration = configuration
        self.transport = transport ?? AsyncHTTPClientTransport(readTimeout: TimeAmount(configuration.upstreamReadTimeout))
        upstreamScheme = upstream.scheme ?? "http"
        upstreamAuthority = Self.authority(of: upstream)
        upstreamPrefix = Self.prefix(of: upstream)
        admission = RequestAdmission(
            upstreamAuthority: upstreamAuthority,
            virtualHosts: Set(configuration.virtualHosts.map { Authority($0)?.host ?? $0.lowercased() })
        )
    }

    /// The upstream's scheme, authority and path prefix, worked out once.
    private let upstreamScheme: String
    private let upstreamAuthority: String
    private let upstreamPrefix: String
    /// The rule every request meets first.
    let admission: RequestAdmission
    /// Where metrics are made; `nil`: the process's swift-metrics backend (tests pass their own).
    let metricsFactory: (any MetricsFactory)?

    /// Whether fresh hits are answered on the event loop from the connection's raw bytes
    /// (``RawHitHandler``); off only in tests that compare that path with the full flow.
    let answersHitsOnEventLoop: Bool
    /// Told of each request answered on the event loop; for tests, `nil` otherwise (a hit
    /// then pays one `nil` check for it).
    let onEventLoopAnswer: (@Sendable () -> Void)?

    /// Releases the upstream client.
    public func shutdown() async throws { try await transport.shutdown() }

    /// Answers one client request: through the cache, then upstream when needed.
    ///
    /// ```swift
    /// let (head, body) = await proxy.respond(to: request, body: Data())
    /// ```
    ///
    /// The body comes back whole, at most the transport's `maximumBodySize` (64 MiB by
    /// default; a longer one is a `502`); the server itself
    /// (``run(host:port:logger:accessLog:onRunning:)``) passes bodies of any size on as they arrive.
    /// `request` meets the same rules as a client's request to the server (its path as the
    /// target, its authority and `Host` fields as `Host`), and `body` the same size limit.
    public func respond(to request: HTTPRequest, body: Data) async -> (HTTPResponse, Data) {
        let hostCount = (request.authority == nil ? 0 : 1) + request.headerFields[values: .hostField].count
        let hosts: RequestAdmission.Hosts = hostCount > 1 ? .several : (request.authority ?? request.headerFields[.hostField]).map { .one($0) } ?? .none
        let admitted: HTTPRequest
        switch admission.decide(method: request.method, target: request.path ?? "/", hosts: hosts, requiresHost: false) {
        case .admit(let path, let authority):
            var request = request
            request.path = path
            request.authority = authority
            request.headerFields[.hostField] = nil
            admitted = request
        case .serverOptions:
            return Self.serverOptions()
        case .refuse(let reason):
            return Self.refusal(.badRequest, reason, method: request.method)
        }
        if body.count > configuration.maximumRequestBodySize {
            return Self.refusal(.contentTooLarge, "a request body over \(configuration.maximumRequestBodySize) bytes", method: request.method)
        }
        do {
            let streamed = try await cacheAnswer(to: admitted, body: body, upload: nil)
            let whole = try await streamed.body.collect(upTo: transport.maximumBodySize)
            let answer = CachedHTTPResponse(response: streamed.response, body: whole, outcome: streamed.outcome)
            return (Self.clientResponse(answer, method: request.method), answer.body)
        } catch {
            return UpstreamFailure(error).response(method: request.method)
        }
    }

    /// A request body the server passes on as it arrives, and its announced length.
    struct Upload: Sendable {
        let body: UploadBody
        let length: Int?
    }

    /// Answers one client request, its body (`upload`, `nil` without one) passed on as it
    /// arrives and the answer's as it arrives: what the server sends. The request has been
    /// through ``RequestGate``: admitted, or carrying its verdict. An upstream failure before
    /// the response head is an answer of its own (`502`/`504`, `413` for a body that went
    /// past the limit); a failure later is thrown by reading the body, and the server then
    /// closes the connection (the client sees a body shorter than announced, or without its
    /// last chunk).
    func streamedAnswer(
        to request: HTTPRequest, upload: Upload?, report: RequestReport
    ) async -> (HTTPResponse, HTTPBodyStream, RequestReport.Outcome) {
        if let verdict = request.headerFields[RequestGate.verdictName] {
            if verdict == RequestGate.serverOptions {
                let (head, body) = Self.serverOptions()
                return (head, HTTPBodyStream(body), .hit)
            }
            let (head, body) = Self.refusal(.badRequest, verdict, method: request.method)
            return (head, HTTPBodyStream(body), .refused)
        }
        if let length = upload?.length, length > configuration.maximumRequestBodySize {
            // Refused on its announced length, before a byte of it is read.
            let (head, body) = Self.refusal(.contentTooLarge, "a request body over \(configuration.maximumRequestBodySize) bytes", method: request.method)
            return (head, HTTPBodyStream(body), .refused)
        }
        do {
            let answer = try await cacheAnswer(to: request, body: Data(), upload: upload, upstreamLatency: report.upstreamLatency)
            let length = answer.body.wholeData?.count
            return (Self.clientResponse(answer.response, length: length, outcome: answer.outcome, method: request.method), answer.body, .init(answer.outcome))
        } catch {
            let (head, body) = switch upload?.body.outcome {
            case .tooLarge: Self.refusal(.contentTooLarge, "a request body over \(configuration.maximumRequestBodySize) bytes", method: request.method)
            case .timedOut: Self.refusal(.requestTimeout, "no byte of the request body for \(configuration.requestBodyTimeout)", method: request.method)
            case .malformed: Self.refusal(.badRequest, "a malformed request body", method: request.method)
            case .fine, nil: UpstreamFailure(error).response(method: request.method)
            }
            let outcome = upload?.body.outcome
            return (head, HTTPBodyStream(body), outcome == .tooLarge || outcome == .malformed ? .refused : .error)
        }
    }


    /// The cache's answer to a client request, the upstream's body streamed. An `upload`
    /// goes with the first trip to the upstream (a request whose body is read is never sent
    /// again; a later trip, such as a background revalidation, sends `body`).
    private func cacheAnswer(
        to request: HTTPRequest, body: Data, upload: Upload?, upstreamLatency: Metrics.Timer? = nil
    ) async throws -> StreamedHTTPResponse {
        let outgoing = cacheRequest(for: request)
        let forwardedHost = admission.virtualHosts.isEmpty ? nil : outgoing.authority
        let upstreamOrigin = (scheme: upstreamScheme, authority: upstreamAuthority, prefix: upstreamPrefix)
        let transport = transport
        let pending = upload.map { LockedValue(Optional($0)) }
        return try await cache.streamResponse(to: outgoing, body: body) { request, body in
            var upstreamRequest = request
            upstreamRequest.scheme = upstreamOrigin.scheme
            upstreamRequest.authority = upstreamOrigin.authority
            if let forwardedHost { upstreamRequest.headerFields[.hostField] = forwardedHost }
            let sent = ContinuousClock.now
            defer { upstreamLatency?.recordNanoseconds((ContinuousClock.now - sent).nanoseconds) }
            var (response, data) = if let upload = pending?.withLock({ value in defer { value = nil }; return value }) {
                try await transport.stream(upstreamRequest, body: upload.body.stream, length: upload.length)
            } else {
                try await transport.stream(upstreamRequest, body: body)
            }
            Self.relocate(&response, from: "\(upstreamOrigin.scheme)://\(upstreamOrigin.authority)", prefix: upstreamOrigin.prefix)
            return (response, data)
        }
    }

    /// `request` as the cache sees it: the URL the client used (so that `Location` /
    /// `Content-Location` in client terms invalidate the right entries; the upstream's own
    /// scheme and authority are set when it is sent) under the upstream's path prefix,
    /// without hop-by-hop fields. The one construction both the event-loop hit path and
    /// ``respond(to:body:)`` use, so both find the same stored response.
    func cacheRequest(for request: HTTPRequest) -> HTTPRequest {
        let forwardsAll = !DroppedRequestFields.names.containsAny(of: request.headerFields)
        let method = Self.wireMethod(request.method)
        if forwardsAll, upstreamPrefix.isEmpty, method == request.method, request.scheme == "http", request.authority != nil,
           request.path != nil {
            // Already in the cache's terms (a request read on the event loop, nearly always).
            return request
        }
        let target = cacheTarget(forPlain: request.authority ?? request.headerFields[.hostField], path: request.path ?? "/")
        var outgoing = HTTPRequest(method: method, scheme: "http", authority: target.authority, path: target.path)
        outgoing.headerFields = forwardsAll ? request.headerFields : HopByHop.removing(from: request.headerFields, also: DroppedRequestFields.endToEnd)
        return outgoing
    }

    /// The authority and path the cache sees for a request for `path` (origin form) whose
    /// first `Host` is `authority`: its own, unless the proxy adds a path prefix or the
    /// upstream's authority (for a request without `Host`). ``cacheRequest(for:)`` uses it,
    /// and the event-loop hit path for a plain request (one read by ``PlainRequestHead``,
    /// which carries no field the proxy drops), so both find the same stored response.
    func cacheTarget(forPlain authority: String?, path: String) -> (authority: String, path: String) {
        (authority ?? upstreamAuthority, upstreamPrefix.isEmpty ? path : upstreamPrefix + path)
    }

    /// The answer to a request the proxy refuses to forward (`400`, `408`, `413`), the reason
    /// in `Cache-Status`; it closes the connection (`Connection: close`), which may hold
    /// bytes the proxy will not read.
    static func refusal(_ status: HTTPResponse.Status, _ reason: String, method: HTTPRequest.Method) -> (HTTPResponse, Data) {
        let message = Data("\(status.reasonPhrase.lowercased())\n".utf8)
        var fields = HTTPFields()
        fields[.contentType] = "text/plain; charset=utf-8"
        fields[.contentLength] = String(message.count)
        fields[.connection] = "close"
        fields[.cacheStatus] = "stash; detail=\"\(reason.filter { $0 != "\"" && $0 != "\\" })\""
        return (HTTPResponse(status: status, headerFields: fields), method == .head ? Data() : message)
    }

    /// The answer to `OPTIONS *`, a question about the proxy itself (RFC 9110 §9.3.7).
    static func serverOptions() -> (HTTPResponse, Data) {
        var fields = HTTPFields()
        fields[.contentLength] = "0"
        fields[.cacheStatus] = "stash; detail=\"server options\""
        return (HTTPResponse(status: .ok, headerFields: fields), Data())
    }

    /// The method as the client spelled it. SwiftNIO's HTTP/1 parser reports `M-SEARCH` as
    /// `MSEARCH` (a name it cannot have been sent as, since the parser rejects it), and
    /// forwarding that would make the origin answer `400`.
    private static func wireMethod(_ method: HTTPRequest.Method) -> HTTPRequest.Method {
        method.rawValue == "MSEARCH" ? HTTPRequest.Method("M-SEARCH") ?? method : method
    }

    /// Rewrites upstream-absolute `Location` / `Content-Location` into absolute paths in the
    /// client's terms (without the upstream's path `prefix`), as reverse proxies do. A path
    /// and not a URL: the proxy never writes a client's `Host` into a response that may be
    /// stored and served to others.
    private static func relocate(_ response: inout HTTPResponse, from upstreamOrigin: String, prefix: String) {
        for name in [HTTPField.Name.location, .contentLocation] {
            guard let value = response.headerFields[name], value.lowercased().hasPrefix(upstreamOrigin.lowercased()) else { continue }
            var rest = value.dropFirst(upstreamOrigin.count)
            guard rest.isEmpty || rest.first == "/" || rest.first == "?" else { continue } // another port or host
            if !prefix.isEmpty, rest.hasPrefix(prefix), rest.dropFirst(prefix.count).first.map({ $0 == "/" || $0 == "?" }) ?? true {
                rest = rest.dropFirst(prefix.count)
            }
            response.headerFields[name] = rest.first == "/" ? String(rest) : "/" + rest
        }
    }

    static func clientResponse(_ answer: CachedHTTPResponse, method: HTTPRequest.Method) -> HTTPResponse {
        clientResponse(answer.response, length: answer.body.count, outcome: answer.outcome, method: method)
    }

    /// `response` as the client gets it: without hop-by-hop fields, with a `Cache-Status`,
    /// and a `Content-Length` of `length` (`nil` while the body is still arriving: the
    /// origin's own, when it sent one, else none and the body goes out chunked).
    static func clientResponse(_ response: HTTPResponse, length: Int?, outcome: HTTPCacheOutcome, method: HTTPRequest.Method) -> HTTPResponse {
        var response = response
        let originalLength = response.headerFields[.contentLength]
        response.headerFields = HopByHop.removing(from: response.headerFields, also: ["content-length"])
        let status = response.status.code
        if status != 204, status != 304, !(100..<200).contains(status) {
            response.headerFields[.contentLength] = method == .head ? originalLength : length.map { String($0) } ?? originalLength
        }
        response.headerFields[.cacheStatus] = cacheStatus(outcome)
        return response
    }

    private static func cacheStatus(_ outcome: HTTPCacheOutcome) -> String {
        switch outcome {
        case .network: return "stash; fwd=miss"
        case .cache: return "stash; hit"
        case .revalidated: return "stash; fwd=stale; fwd-status=304"
        case .staleAfterNetworkFailure: return "stash; hit; detail=stale-after-error"
        case .unavailable: return "stash; fwd=request; detail=only-if-cached"
        }
    }

    private static func authority(of url: URL) -> String {
        let host = url.host ?? "127.0.0.1"
        return url.port.map { "\(host):\($0)" } ?? host
    }

    private static func prefix(of url: URL) -> String {
        let path = url.path
        return path == "/" ? "" : (path.hasSuffix("/") ? String(path.dropLast()) : path)
    }
}

extension HTTPField.Name {
    /// `Cache-Status` (RFC 9211).
    static let cacheStatus = HTTPField.Name("Cache-Status")!
}
