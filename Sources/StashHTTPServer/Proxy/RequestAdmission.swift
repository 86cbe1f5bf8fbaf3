import HTTPTypes
import StashHTTP

/// The one rule every request meets before the proxy looks anything up or forwards
/// anything, whichever path it takes: the raw hit path (``RawHitHandler``), NIO's decoded
/// requests (``RequestGate``), and ``HTTPCachingProxy/respond(to:body:)``.
///
/// - Target: origin form (`/path?query`: visible ASCII, no `#`, well-formed `%` escapes, no
///   dot segment, literal or escaped) is taken as it is. Absolute form (`http://host/path`) is
///   taken only when its authority is the upstream's own or, with virtual hosts, one of
///   them, and is then reduced to its path. Asterisk form (`*`) only for `OPTIONS`, which the
///   proxy answers itself. Anything else (authority form, `*@host/x`, user information) is
///   refused, and so is `CONNECT` in every form. A path an origin could read as climbing
///   out of the upstream's prefix is refused too (``RequestTarget/refusal(_:)``).
/// - `Host`: at most one, an RFC 3986 host with an optional port; an HTTP/1.1 request must
///   carry one (RFC 9112 §3.2).
/// - The authority the cache keys on: the upstream's own, so that a client's `Host` cannot
///   select another entry (nginx's default key, `$scheme$proxy_host$request_uri`); with
///   virtual hosts, the client's host name, when it is one of them (refused otherwise), and
///   that name is sent upstream as `Host`.
///
/// ```swift
/// let admission = RequestAdmission(upstreamAuthority: "127.0.0.1:8000", virtualHosts: [])
/// admission.decide(method: .get, target: "/a", hosts: .one("example.com"), requiresHost: true)
/// // .admit(path: "/a", authority: "127.0.0.1:8000")
/// ```
struct RequestAdmission: Sendable {
    /// The upstream's authority, as its URL names it.
    let upstreamAuthority: String
    /// The host names the upstream serves, lowercased; empty when the cache keys on the
    /// upstream's authority alone.
    let virtualHosts: Set<String>

    /// The `Host` fields of a request.
    enum Hosts {
        case none
        case one(String)
        case several
    }

    enum Decision: Equatable {
        /// Look up and forward `path` (origin form) under `authority`, the cache key's.
        case admit(path: String, authority: String)
        /// `OPTIONS *`: the proxy answers for itself.
        case serverOptions
        /// Answered `400 Bad Request`, with the reason in `Cache-Status`, and never forwarded.
        case refuse(String)
    }

    /// What becomes of a request for `target` with `hosts`; `requiresHost` for HTTP/1.1.
    func decide(method: HTTPRequest.Method, target: String, hosts: Hosts, requiresHost: Bool) -> Decision {
        // A tunnel is never opened, whatever the target's form (RFC 9110 §9.3.6).
        if method == .connect { return .refuse("CONNECT") }
        let host: String?
        switch hosts {
        case .several: return .refuse("more than one Host field")
        case .none where requiresHost: return .refuse("no Host field")
        case .none: host = nil
        case .one(let value):
            guard Self.isAuthority(value) else { return .refuse("a Host field that is not a host and port") }
            host = value
        }
        if target.utf8.first == UInt8(ascii: "/") {
            return admit(path: target, host: host)
        }
        if target == "*" {
            return method == .options ? .serverOptions : .refuse("the asterisk form outside OPTIONS")
        }
        guard let (authority, path) = Self.absoluteForm(target) else {
            return .refuse("a request target that is not in origin or absolute form")
        }
        // RFC 9112 §3.2.2: the target's authority stands for `Host`.
        guard virtualHosts.isEmpty ? authority.field == Self.normalized(upstreamAuthority) : virtualHosts.contains(authority.host) else {
            return .refuse("an absolute-form target for another host")
        }
        return admit(path: path, host: authority.field)
    }

    /// Admits an origin-form `path` for `host` (the `Host` field or the absolute form's authority).
    private func admit(path: String, host: String?) -> Decision {
        guard OriginForm.isValid(path) else { return .refuse("a request target with a byte or escape a URI cannot hold") }
        if let reason = RequestTarget.refusal(path) { return .refuse(reason) }
        guard !virtualHosts.isEmpty else { return .admit(path: path, authority: upstreamAuthority) }
        guard let host, let name = Authority(host)?.host, virtualHosts.contains(name) else {
            return .refuse("a Host this proxy does not serve")
        }
        return .admit(path: path, authority: name)
    }

    private static func isAuthority(_ value: String) -> Bool {
        var value = value
        return value.withUTF8 { Authority.isValid(UnsafeRawBufferPointer($0)) }
    }

    private static func normalized(_ authority: String) -> String { Authority(authority)?.field ?? authority.lowercased() }

    /// The authority and origin-form path of an absolute-form target (`http://host[:port]/path?query`
    /// or `https://…`), `nil` when it is not one or carries user information.
    static func absoluteForm(_ target: String) -> (Authority, String)? {
        let lowered = target.prefix(8).lowercased()
        let schemeLength = lowered.hasPrefix("http://") ? 7 : lowered.hasPrefix("https://") ? 8 : 0
        guard schemeLength > 0 else { return nil }
        let rest = target.dropFirst(schemeLength)
        let end = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        guard let authority = Authority(rest[..<end]), !authority.host.isEmpty else { return nil }
        let path = rest[end...]
        if path.isEmpty { return (authority, "/") }
        return (authority, path.first == "?" ? "/" + path : String(path))
    }
}
