public import Foundation
public import HTTPTypes
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A transport over `URLSession`, with Foundation's own caching switched off so that only
/// the ``HTTPCache`` decides: an ephemeral configuration, no `URLCache`, every request
/// `.reloadIgnoringLocalCacheData`, and redirects handed back rather than followed.
///
/// ```swift
/// let client = CachingHTTPClient(cache: cache, transport: URLSessionTransport())
/// ```
///
/// Multi-valued response fields arrive joined by Foundation (`a, b`); `URLSession` may
/// also decode `Content-Encoding` itself. Thread-safe.
public struct URLSessionTransport: HTTPTransport {
    private let session: URLSession

    /// Creates a transport with its own session.
    ///
    /// - parameter timeout: Seconds before a request fails.
    public init(timeout: TimeInterval = 60) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForRequest = timeout
        session = URLSession(configuration: configuration, delegate: RedirectRefusal(), delegateQueue: nil)
    }

    public func send(_ request: HTTPRequest, body: Data) async throws -> (HTTPResponse, Data) {
        guard let url = URL(string: "\(request.scheme ?? "http")://\(request.authority ?? "")\(request.path ?? "/")") else {
            throw URLError(.badURL)
        }
        var urlRequest = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData)
        urlRequest.httpMethod = request.method.rawValue
        for field in request.headerFields { urlRequest.addValue(field.value, forHTTPHeaderField: field.name.rawName) }
        if !body.isEmpty { urlRequest.httpBody = body }
        let (data, response) = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(Data, URLResponse), any Error>) in
            session.dataTask(with: urlRequest) { data, response, error in
                if let error { continuation.resume(throwing: error) } else if let response {
                    continuation.resume(returning: (data ?? Data(), response))
                } else {
                    continuation.resume(throwing: URLError(.badServerResponse))
                }
            }.resume()
        }
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        var fields = HTTPFields()
        for (name, value) in http.allHeaderFields {
            guard let name = (name as? String).flatMap({ HTTPField.Name($0) }), let value = value as? String else { continue }
            fields.append(HTTPField(name: name, value: value))
        }
        return (HTTPResponse(status: HTTPResponse.Status(code: http.statusCode), headerFields: fields), data)
    }
}

/// Hands redirects back to the caller, so the cache sees (and may store) them.
private final class RedirectRefusal: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
