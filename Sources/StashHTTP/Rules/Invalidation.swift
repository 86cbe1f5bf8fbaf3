import Foundation
import HTTPTypes

/// Invalidation (RFC 9111 §4.4): a successful unsafe request makes the cache forget what it
/// holds for the target URI and for same-origin `Location` / `Content-Location`.
enum Invalidation {
    static let safeMethods: Set<HTTPRequest.Method> = [.get, .head, .options, .trace]

    /// The cache keys to drop after `request` got `response`; empty when nothing is.
    static func keys(request: HTTPRequest, response: HTTPResponse, key: PrimaryCacheKey) -> [PrimaryCacheKey] {
        guard !safeMethods.contains(request.method), (200..<400).contains(response.status.code) else { return [] }
        var keys = [key]
        for name in [HTTPField.Name.location, .contentLocation] {
            guard let value = response.headerFields[name], let related = key.resolving(value),
                  related.origin == key.origin else { continue }
            keys.append(related)
        }
        return keys
    }
}
