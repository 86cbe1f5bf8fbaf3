import Foundation
import HTTPTypes

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
/// Thread-safe: one client may serve any number of concurrent tasks.
public struct CachingHTTPClient: Sendable {
    /// The cache in front of the transport.
    public let cache: HTTPCache
    /// How requests reach the network.
    public let transport: any HTTPTransport
    /// The policy of requests that name none.
    public var defaultPolicy: RequestCachePolicy

    /// Creates a client over `cache` and `transport`.
    public init(cache: HTTPCache, transport: any HTTPTransport, defaultPolicy: RequestCachePolicy = .useProtocolCachePolicy) {
        self.cache = cache
        self.transport = transport
        self.defaultPolicy = defaultPolicy
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
        return try await cache.respond(to: request, body: body, policy: policy ?? defaultPolicy) { request, body in
            try await transport.send(request, body: body)
        }
    }
}
