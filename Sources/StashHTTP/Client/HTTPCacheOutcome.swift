public import Foundation
public import HTTPTypes

/// Where a response came from.
public enum HTTPCacheOutcome: String, Sendable, Hashable, CaseIterable {
    /// From the origin: nothing usable was stored, or the origin sent a new response.
    case network
    /// From the cache, without contacting the origin.
    case cache
    /// From the cache after the origin confirmed it with `304 Not Modified`.
    case revalidated
    /// From the cache, stale, because the origin could not be reached or failed and HTTP
    /// (`stale-if-error`, `max-stale`, a disconnected cache) or the policy allowed it.
    case staleAfterNetworkFailure
    /// Nothing suitable was stored and the request forbade the network
    /// (`only-if-cached`, ``RequestCachePolicy/returnCacheDataDontLoad``): a generated
    /// `504 Gateway Timeout`.
    case unavailable
}

/// A response with its body and where it came from.
///
/// ```swift
/// let answer = try await client.send(request)
/// print(answer.response.status, answer.outcome, answer.body.count)
/// ```
public struct CachedHTTPResponse: Sendable {
    /// The status and fields. Responses from the cache carry an `Age` field.
    public var response: HTTPResponse
    /// The content (empty for `HEAD`, `304` and `204`).
    public var body: Data
    /// Where it came from.
    public var outcome: HTTPCacheOutcome

    public init(response: HTTPResponse, body: Data, outcome: HTTPCacheOutcome) {
        self.response = response
        self.body = body
        self.outcome = outcome
    }
}
