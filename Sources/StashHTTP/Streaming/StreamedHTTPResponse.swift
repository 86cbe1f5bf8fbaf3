import Foundation
public import HTTPTypes

/// A response the cache gave, with its body as it arrives: what
/// ``HTTPCache/streamResponse(to:body:policy:revalidatesInBackground:send:)`` returns.
///
/// ```swift
/// let answer = try await cache.streamResponse(to: request) { request, body in
///     try await transport.stream(request, body: body)
/// }
/// print(answer.response.status, answer.outcome)
/// for try await part in answer.body { try await output.write(part) }
/// ```
///
/// `Sendable`, but its body is read once, by one task. Nothing is stored until that body
/// has been read to its end (see ``HTTPCache/streamResponse(to:body:policy:revalidatesInBackground:send:)``).
public struct StreamedHTTPResponse: Sendable {
    /// The status and fields. Responses from the cache carry an `Age` field.
    public var response: HTTPResponse
    /// The content (empty for `HEAD`, `304` and `204`), to be read once, to its end.
    public var body: HTTPBodyStream
    /// Where it came from.
    public var outcome: HTTPCacheOutcome

    /// A response with a body that arrives in parts.
    ///
    /// ```swift
    /// let answer = StreamedHTTPResponse(response: HTTPResponse(status: .ok), body: HTTPBodyStream(Data("hi".utf8)), outcome: .network)
    /// ```
    public init(response: HTTPResponse, body: HTTPBodyStream, outcome: HTTPCacheOutcome) {
        self.response = response
        self.body = body
        self.outcome = outcome
    }

    init(_ whole: CachedHTTPResponse) {
        self.init(response: whole.response, body: HTTPBodyStream(whole.body), outcome: whole.outcome)
    }

    /// This response with its body read whole.
    ///
    /// ```swift
    /// let whole = try await answer.collected()
    /// ```
    ///
    /// - throws: What reading the body throws (the origin closed before its end).
    public func collected() async throws -> CachedHTTPResponse {
        CachedHTTPResponse(response: response, body: try await body.collect(), outcome: outcome)
    }
}
