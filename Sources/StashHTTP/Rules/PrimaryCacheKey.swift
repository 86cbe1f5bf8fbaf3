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
/// is lowercased and joined in one pass into one buffer of the right size, and only a URI with
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
        if let (key, originLength) = Self.plainASCIIKey(scheme: scheme, authority: authority, path: path) {
            storageKey = key
            self.originLength = originLength
            return
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

    /// The key of an ASCII URI, written in one pass into one buffer of the right size (scheme
    /// and authority lowercased on the way), with the length of its origin; `nil` when a part
    /// holds NUL or a non-ASCII byte.
    private static func plainASCIIKey(scheme: String, authority: String, path: String) -> (String, Int)? {
        var scheme = scheme, authority = authority, path = path
        let originLength = scheme.utf8.count + 3 + authority.utf8.count
        let capacity = originLength + path.utf8.count
        var plain = true
        let key = scheme.withUTF8 { scheme in
            authority.withUTF8 { authority in
                path.withUTF8 { path in
                    String(unsafeUninitializedCapacity: capacity) { buffer in
                        var end = 0
                        func copy(_ part: UnsafeBufferPointer<UInt8>, lowercasing: Bool) -> Bool {
                            for byte in part {
                                guard StoredKey.isPlainASCII(byte) else { return false }
                                buffer[end] = lowercasing && byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
                                end += 1
                            }
                            return true
                        }
                        plain = copy(scheme, lowercasing: true)
                        if plain {
                            for byte in "://".utf8 {
                                buffer[end] = byte
                                end += 1
                            }
                            plain = copy(authority, lowercasing: true) && copy(path, lowercasing: false)
                        }
                        return plain ? end : 0
                    }
                }
            }
        }
        return plain ? (key, originLength) : nil
    }
}
