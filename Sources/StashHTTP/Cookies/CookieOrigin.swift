import Foundation
import HTTPTypes
import StashCore

/// Where a request goes, as cookies see it: the scheme, the canonical host and the path.
struct CookieOrigin: Sendable {
    var host: String
    var path: String
    var isSecure: Bool

    init(scheme: String?, host rawHost: String, path: String) throws {
        host = try CookieDomain.canonical(rawHost)
        self.path = CookieDomain.requestPath(path)
        isSecure = CookieDomain.isSecure(scheme: scheme, host: host)
    }

    init(_ url: URL) throws {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true),
              let host = components.host, !host.isEmpty else {
            throw StashError(.invalidHost, "the URL has no host", key: url.absoluteString)
        }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        try self.init(scheme: components.scheme, host: host, path: path)
    }

    init(_ request: HTTPRequest) throws {
        guard let authority = request.authority ?? request.headerFields[.hostField], !authority.isEmpty else {
            throw StashError(.invalidHost, "the request has no authority nor Host field")
        }
        try self.init(scheme: request.scheme, host: Self.host(ofAuthority: authority), path: request.path ?? "/")
    }

    /// The host of `user@host:port`, keeping IPv6 brackets.
    static func host(ofAuthority authority: String) -> String {
        var rest = Substring(authority)
        if let at = rest.lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
        if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") { return String(rest[...close]) }
        if let colon = rest.lastIndex(of: ":"), rest[rest.index(after: colon)...].allSatisfy(\.isNumber) {
            return String(rest[..<colon])
        }
        return String(rest)
    }
}
