import HTTPTypes
import NIOCore
import NIOHTTP1
import StashCore
import StashHTTP

extension HTTPCachingProxy {
    /// The answer to `head`, as NIO's HTTP/1 decoder reports it, when it is a fresh hit that
    /// may be sent from the event loop at once (``FreshHitHandler``), or `nil` to send it
    /// through ``respond(to:body:)``.
    ///
    /// Only plain HTTP/1.1 `GET` and `HEAD` requests in origin form qualify: no body, no
    /// `Cache-Control` or `Pragma` (whose directives the full flow weighs), no `Connection`
    /// or `Expect` (which change how the connection goes on), no dot segment; the cache
    /// itself turns away conditionals and `Range`, and answers only with a cache of this
    /// process (``StashHTTP/HTTPCache/freshHit(for:)`` answers `nil` with shared storage,
    /// where another instance may have invalidated what this one last saw).
    func freshAnswer(to head: HTTPRequestHead) -> FreshHitHandler.Answer? {
        guard head.method == .GET || head.method == .HEAD, head.version == .http1_1,
              head.uri.utf8.first == UInt8(ascii: "/"), !RequestTarget.hasDotSegment(head.uri),
              let request = Self.plainRequest(head),
              let hit = cache.freshHit(for: cacheRequest(for: request)) else { return nil }
        let form = hit.prepared { WireForm(body: hit.body) }
        eventLoopAnswers.withLock { $0 += 1 }
        return (form.head(for: hit), head.method == .HEAD ? nil : form.body)
    }

    /// `head` as HummingbirdCore's HTTPTypes conversion gives it (the first `Host` as the
    /// authority, the other fields in order, the origin-form target as the path) without
    /// going through `URLComponents`; `nil` when it carries a field that sends it through
    /// the full flow, or a field name HTTPTypes refuses.
    private static func plainRequest(_ head: HTTPRequestHead) -> HTTPRequest? {
        var fields = HTTPFields()
        fields.reserveCapacity(head.headers.count)
        var authority: String?
        var seenHost = false
        for (name, value) in head.headers {
            guard let fieldName = HTTPField.Name(name) else { return nil }
            if fieldName == .hostField, !seenHost {
                seenHost = true
                authority = value
                continue
            }
            if fullFlowFields.contains(fieldName), !(fieldName == .contentLength && value == "0") { return nil }
            fields.append(HTTPField(name: fieldName, value: value))
        }
        return HTTPRequest(method: head.method == .GET ? .get : .head, scheme: "http", authority: authority, path: head.uri, headerFields: fields)
    }

    /// Request fields that send a request through the full asynchronous flow.
    private static let fullFlowFields: Set<HTTPField.Name> = [
        .cacheControl, HTTPField.Name("Pragma")!, .connection, .expect, .contentLength, .transferEncoding,
    ]
}
