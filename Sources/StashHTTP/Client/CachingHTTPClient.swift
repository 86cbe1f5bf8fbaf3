public import Foundation
public import HTTPTypes

/// An HTTP client that answers from an ``HTTPCache`` when HTTP allows and from its
/// transport otherwise, telling each time where the answer came from.
///
/// ```swift
/// let client = CachingHTTPClient(cache: try HTTPCache(sandbox: .main), transport: URLSessionTransport())
/// let answer = try await client.send(HTTPRequest(url: URL(string: "https://example.com/feed")!))
/// switch answer.outcome {
/// case .network: print("downloaded")
/// case .cache, .revalidated: print("saved a download")
/// case .staleAfterNetworkFailure: print("offline: showing older content")
/// case .unavailable: print("nothing cached")
/// }
/// ```
///
/// Answers carry whole bodies: ``HTTPTransport`` returns a whole body, and a stored body
/// kept in a file (a large response stored by a streaming proxy) is read into memory for
/// the answer. For bodies that should not be held in memory, use
/// ``HTTPCache/streamResponse(to:body:policy:revalidatesInBackground:send:)`` with a
/// transport that streams (`AsyncHTTPClientTransport.stream(_:body:)`).
///
/// Thread-safe: one client may serve any number of concurrent tasks.
public struct CachingHTTPClient: Sendable {
    /// The cache in front of the transport.
    public let cache: HTTPCache
    /// How requests reach the network.
    public let transport: any HTTPTransport
    /// The policy of requests that name none.
    public var defaultPolicy: RequestCachePolicy
    /// The cookies the client sends and stores; `nil` for a client without cookies.
    public let cookieJar: CookieJar?

    /// Creates a client over `cache` and `transport`, with cookies from `cookieJar` if given.
    ///
    /// ```swift
    /// let client = CachingHTTPClient(cache: cache, transport: transport, cookieJar: try CookieJar(sandbox: .main))
    /// ```
    ///
    /// With a jar, every request carries the jar's cookies for its URL (after any `Cookie`
    /// the request already has), and every response that comes from the network, a 304 of a
    /// revalidation included, has its `Set-Cookie` fields stored. A response served from
    /// the cache never stores its `Set-Cookie` again.
    public init(
        cache: HTTPCache, transport: any HTTPTransport, defaultPolicy: RequestCachePolicy = .useProtocolCachePolicy,
        cookieJar: CookieJar? = nil
    ) {
        self.cache = cache
        self.transport = transport
        self.defaultPolicy = defaultPolicy
        self.cookieJar = cookieJar
    }

    /// Sends `request` through the cache.
    ///
    /// ```swift
    /// let answer = try await client.send(request, policy: .returnCacheDataElseLoad)
    /// ```
    ///
    /// - throws: The transport's error when the network fails and no stale response may
    ///   be served.
    public func send(_ request: HTTPRequest, body: Data = Data(), policy: RequestCachePolicy? = nil) async throws -> CachedHTTPResponse {
        let transport = transport
        guard let jar = cookieJar else {
            return try await cache.respond(to: request, body: body, policy: policy ?? defaultPolicy) { request, body in
                try await transport.send(request, body: body)
            }
        }
        // Cookies join the request before the cache sees it, so `Vary: Cookie` compares them.
        return try await cache.respond(to: jar.addingCookies(to: request), body: body, policy: policy ?? defaultPolicy) { request, body in
            let (response, data) = try await transport.send(request, body: body)
            jar.setCookies(from: response, for: request)
            return (response, data)
        }
    }
}
