import Foundation
import HTTPTypes
import StashCore

/// The primary cache key (RFC 9111 §2): the target URI, query included, with the scheme and
/// host lowercased. The method is not part of it because only GET responses are stored.
///
/// Keys follow the package's key identity rule (``StashCore/StoredKey``): URIs that Swift
/// finds equal (canonically equivalent Unicode) are one key in memory and on disk, before
/// and after a reopen, and a URI holding NUL is never cached.
///
/// A key is built on every lookup, so it is one string: an ASCII URI (nearly all of them)
/// is lowercased and joined in one pass into a buffer of the right size, and only a URI with
/// other characters goes through Unicode lowercasing and normalization.
struct PrimaryCacheKey: Hashable, Sendable, CustomStringConvertible {
    /// What the storage is keyed by: `scheme://authority` lowercased, then the path and
    /// query as sent, in Unicode Normalization Form C.
    let storageKey: String
    /// How many UTF-8 bytes of `storageKey` are the origin (`scheme://authority`).
    private let originLength: Int

    /// `nil` when the URI holds a NUL character.
    init?(scheme: String, authority: String, path: String) {
        let path = path.isEmpty ? "/" : path
        var key = String()
        key.reserveCapacity(scheme.utf8.count + 3 + authority.utf8.count + path.utf8.count)
        if Self.appendASCIILowercased(scheme, to: &key), Self.append("://", to: &key),
           Self.appendASCIILowercased(authority, to: &key) {
            let originLength = key.utf8.count
            if Self.append(path, to: &key) {
                storageKey = key
                self.originLength = originLength
                return
            }
        }
        let origin = scheme.lowercased() + "://" + authority.lowercased()
        guard let normalizedOrigin = try? StoredKey.normalized(origin),
              let storageKey = try? StoredKey.normalized(origin + path) else { return nil }
        self.storageKey = storageKey
        originLength = normalizedOrigin.utf8.count
    }

    /// The key of `request`, or `nil` when it has no authority (an origin-form request with
    /// no `Host`) or holds a NUL character.
    init?(_ request: HTTPRequest) {
        guard let authority = request.authority ?? request.headerFields[.hostField], !authority.isEmpty else { return nil }
        self.init(scheme: request.scheme ?? "http", authority: authority, path: request.path ?? "/")
    }

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.storageKey == rhs.storageKey }
    func hash(into hasher: inout Hasher) { hasher.combine(storageKey) }

    /// `scheme://authority`, lowercased.
    var origin: String { String(decoding: storageKey.utf8.prefix(originLength), as: UTF8.self) }
    var description: String { storageKey }

    /// The key of a `Location`-like reference, resolved against this URI.
    func resolving(_ reference: String) -> PrimaryCacheKey? {
        guard let base = URL(string: storageKey), let url = URL(string: reference, relativeTo: base)?.absoluteURL,
              let scheme = url.scheme, let host = url.host else { return nil }
        let authority = url.port.map { "\(host):\($0)" } ?? host
        var path = url.path.isEmpty ? "/" : url.path
        if let query = url.query { path += "?" + query }
        return PrimaryCacheKey(scheme: scheme, authority: authority, path: path)
    }

    /// Appends `part` with ASCII letters lowercased; `false` (and `key` left partly
    /// written) when `part` holds NUL or a non-ASCII byte.
    private static func appendASCIILowercased(_ part: String, to key: inout String) -> Bool {
        var part = part
        let uppercase: Bool? = part.withUTF8 { bytes in
            var uppercase = false
            for byte in bytes {
                if byte == 0 || byte >= 0x80 { return nil }
                if byte >= 0x41, byte <= 0x5A { uppercase = true }
            }
            return uppercase
        }
        switch uppercase {
        case nil: return false
        case false?: key.append(part)
        case true?: key.append(part.lowercased())
        }
        return true
    }

    /// Appends `part` unchanged; `false` when it holds NUL or a non-ASCII byte.
    private static func append(_ part: String, to key: inout String) -> Bool {
        guard StoredKey.isPlainASCII(part) else { return false }
        key.append(part)
        return true
    }
}
