public import Foundation
public import HTTPTypes

/// Something that performs one HTTP exchange: the network half of ``CachingHTTPClient``.
///
/// ```swift
/// struct Canned: HTTPTransport {
///     func send(_ request: HTTPRequest, body: Data) async throws -> (HTTPResponse, Data) {
///         (HTTPResponse(status: .ok), Data("hello".utf8))
///     }
/// }
/// ```
///
/// Transports must not cache on their own and must not follow redirects, so that the
/// cache sees what the origin sent.
public protocol HTTPTransport: Sendable {
    /// Sends `request` with `body` and returns the response with its whole body.
    func send(_ request: HTTPRequest, body: Data) async throws -> (HTTPResponse, Data)
}
