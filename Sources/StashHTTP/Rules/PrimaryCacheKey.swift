import Foundation
import HTTPTypes
import StashCore

/// The primary cache key (RFC 9111 §2): the target URI, query included, with the scheme and
/// host lowercased. The method is not part of it because only GET responses are stored.
///
/// Keys follow the package's key identity rule (``StashCore/StoredKey``): URIs that Swift
/// finds equal (canonically equivalent Unicode) are one key in memory and on disk, before
/// and after a reopen, and a URI holding NUL is never cached.
struct PrimaryCacheKey: Hashable, Sendable, CustomStringConvertible {
    let scheme: String
    let authority: String
    /// Path and query, as sent.
    let path: String
    /// What the storage is keyed by: the URI in Unicode Normalization Form C.
    let storageKey: String

    /// `nil` when the URI holds a NUL character.
    init?(scheme: String, authority: String, path: String) {
        self.scheme = scheme.lowercased()
        self.authority = authority.lowercased()
        self.path = path.isEmpty ? "/" : path
        guard let storageKey = try? StoredKey.normalized(self.scheme + "://" + self.authority + self.path) else { return nil }
        self.storageKey = storageKey
    }

    /// The key of `request`, or `nil` when it has no authority (an origin-form request with
    /// no `Host`) or holds a NUL character.
    init?(_ request: HTTPRequest) {
        guard let authority = request.authority ?? request.headerFields[.hostField], !authority.isEmpty else { return nil }
        self.init(scheme: request.scheme ?? "http", authority: authority, path: request.path ?? "/")
    }

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.storageKey == rhs.storageKey }
    func hash(into hasher: inout Hasher) { hasher.combine(storageKey) }

    var origin: String { scheme + "://" + authority }
    var description: String { storageKey }

    /// The key of a `Location`-like reference, resolved against this URI.
    func resolving(_ reference: String) -> PrimaryCacheKey? {
        guard let base = URL(string: origin + path), let url = URL(string: reference, relativeTo: base)?.absoluteURL,
              let scheme = url.scheme, let host = url.host else { return nil }
        let authority = url.port.map { "\(host):\($0)" } ?? host
        var path = url.path.isEmpty ? "/" : url.path
        if let query = url.query { path += "?" + query }
        return PrimaryCacheKey(scheme: scheme, authority: authority, path: path)
    }
}
