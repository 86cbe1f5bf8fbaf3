import HTTPTypes
import NIOCore
import NIOHTTP1
import StashCore
import StashHTTP

extension HTTPCachingProxy {
    /// The answer to `request` when it is a fresh hit that may be sent from the event loop
    /// at once (``FreshHitHandler``), or `nil` to send it through ``respond(to:body:)``.
    ///
    /// Only plain `GET` and `HEAD` requests qualify: no body, no `Cache-Control` or
    /// `Pragma` (whose directives the full flow weighs), no `Connection` or `Expect` (which
    /// change how the connection goes on), no dot segment; the cache itself turns away
    /// conditionals and `Range`, and answers only with a cache of this process (``StashHTTP/HTTPCache/freshHit(for:)``
    /// answers `nil` with shared storage, where another instance may have invalidated
    /// what this one last saw).
    func freshAnswer(to request: HTTPRequest) -> (head: HTTPResponseHead, body: ByteBuffer?)? {
        guard request.method == .get || request.method == .head,
              !request.headerFields.contains(where: { Self.fullFlowFields.contains($0.name) && !Self.isEmptyLength($0) }),
              !RequestTarget.hasDotSegment(request.path ?? "/"),
              let hit = cache.freshHit(for: cacheRequest(for: request)) else { return nil }
        let form = hit.prepared { WireForm(body: hit.body) }
        eventLoopAnswers.withLock { $0 += 1 }
        return (form.head(for: hit), request.method == .head ? nil : form.body)
    }

    /// Request fields that send a request through the full asynchronous flow.
    private static let fullFlowFields: Set<HTTPField.Name> = [
        .cacheControl, HTTPField.Name("Pragma")!, .connection, .expect, .contentLength, .transferEncoding,
    ]

    /// `Content-Length: 0`, which a bodiless request may carry.
    private static func isEmptyLength(_ field: HTTPField) -> Bool {
        field.name == .contentLength && field.value == "0"
    }
}
