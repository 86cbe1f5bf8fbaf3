/// How one request uses the cache, with the names and meanings of Foundation's
/// `URLRequest.CachePolicy`.
///
/// ```swift
/// let fresh = try await client.send(request, policy: .reloadIgnoringLocalCacheData)
/// let offline = try await client.send(request, policy: .returnCacheDataDontLoad)
/// ```
public enum RequestCachePolicy: String, Sendable, Hashable, CaseIterable {
    /// Follow HTTP: serve fresh responses, validate stale ones, store what may be stored
    /// (RFC 9111). The default.
    case useProtocolCachePolicy
    /// Always load from the network; the response is still stored when HTTP allows.
    case reloadIgnoringLocalCacheData
    /// Always ask the origin, conditionally when a stored response has validators, and
    /// serve the stored body on `304 Not Modified`.
    case reloadRevalidatingCacheData
    /// Serve any stored response, however stale, without validating; load only when
    /// nothing is stored.
    case returnCacheDataElseLoad
    /// Serve any stored response, however stale; never touch the network. With nothing
    /// stored the answer is a `504 Gateway Timeout` with outcome ``HTTPCacheOutcome/unavailable``.
    case returnCacheDataDontLoad
}
