import Foundation
import HTTPTypes

/// The primary cache key (RFC 9111 §2): the target URI, query included, with the scheme and
/// host lowercased. The method is not part of it because only GET responses are stored.
struct CacheKey: Hashable, Sendable, CustomStringConvertible {
    var scheme: String
    var authority: String
    /// Path and query, as sent.
    var path: String

    init(scheme: String, authority: String, path: String) {
        self.scheme = scheme.lowercased()
        self.authority = authority.lowercased()
        self.path = path.isEmpty ? "/" : path
    }

    /// The key of `request`, or `nil` when it has no authority (an origin-form request with
    /// no `Host`).
    init?(_ request: HTTPRequest) {
        guard let authority = request.authority ?? request.headerFields[.hostField], !authority.isEmpty else { return nil }
        self.init(scheme: request.scheme ?? "http", authority: authority, path: request.path ?? "/")
    }

    var origin: String { scheme + "://" + authority }
    var description: String { origin + path }

    /// The key of a `Location`-like reference, resolved against this URI.
    func resolving(_ reference: String) -> CacheKey? {
        guard let base = URL(string: description), let url = URL(string: reference, relativeTo: base)?.absoluteURL,
              let scheme = url.scheme, let host = url.host else { return nil }
        let authority = url.port.map { "\(host):\($0)" } ?? host
        var path = url.path.isEmpty ? "/" : url.path
        if let query = url.query { path += "?" + query }
        return CacheKey(scheme: scheme, authority: authority, path: path)
    }
}
