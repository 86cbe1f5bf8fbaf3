/// Whether a cache serves one user or many (RFC 9111 §1): the rules differ.
///
/// ```swift
/// let browserLike = try HTTPCache(directory: folder, mode: .private)
/// let proxy = try HTTPCache(directory: folder, mode: .shared)
/// ```
///
/// A shared cache honours `s-maxage` and `proxy-revalidate`, never stores `private`
/// responses, and does not store responses to requests carrying `Authorization` unless the
/// response says `public`, `s-maxage` or `must-revalidate`.
public enum HTTPCacheMode: String, Sendable, Hashable, CaseIterable {
    /// A cache for one user: an app's or a browser's.
    case `private`
    /// A cache in front of many users: a proxy or CDN.
    case shared
}
