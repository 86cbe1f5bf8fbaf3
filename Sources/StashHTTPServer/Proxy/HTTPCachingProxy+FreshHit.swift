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
    /// `Cache-Control` or `Pragma` (whose directives the full flow weighs), no conditional
    /// or `Range` (whose answer is not the stored response), no `Connection` or `Expect`
    /// (which change how the connection goes on), no dot segment (``PlainRequestHead``'s
    /// rules); and the cache answers only with a cache of this process
    /// (``StashHTTP/HTTPCache/freshHit(forPlain:)`` answers `nil` with shared storage, where
    /// another instance may have invalidated what this one last saw).
    func freshAnswer(to head: HTTPRequestHead) -> FreshHitHandler.Answer? {
        guard head.version == .http1_1, head.uri.utf8.first == UInt8(ascii: "/"),
              let request = Self.plainRequest(head), let (form, hit) = freshForm(for: request, on: .decoded) else { return nil }
        return (form.head(for: hit).head, head.method == .HEAD ? nil : form.body)
    }

    /// The answer to `request`, read from a connection's raw bytes by ``PlainRequestHead``,
    /// when it is a fresh hit (``RawHitHandler``): the bytes of its head and its body, as
    /// ``freshAnswer(to:)`` would have them written (a small body joined to its head).
    func freshWire(to request: HTTPRequest) -> RawHitHandler.Answer? {
        guard let (form, hit) = freshForm(for: request, on: .raw) else { return nil }
        let head = form.head(for: hit)
        if request.method == .head { return (head.bytes, nil) }
        if let whole = head.whole { return (whole, nil) }
        return (head.bytes, form.body)
    }

    /// The prepared form of the fresh hit that answers `request`, a plain `GET` or `HEAD`.
    /// `request` is plain (``PlainRequestHead/FieldRole``): it carries no field that rules a
    /// fresh hit out, and none the proxy drops.
    private func freshForm(for request: HTTPRequest, on path: EventLoopHitPath) -> (WireForm, FreshHit)? {
        guard !RequestTarget.hasDotSegment(request.path ?? "/"), let hit = cache.freshHit(forPlain: cacheRequest(forPlain: request)) else { return nil }
        onEventLoopAnswer?(path)
        return (hit.prepared { WireForm(body: hit.body) }, hit)
    }

    /// `head` as ``PlainRequestHead`` reads it (the first `Host` as the authority, the other
    /// fields in order but those the proxy never forwards, the origin-form target as the
    /// path) without going through `URLComponents`; `nil` when it carries a field that sends
    /// it through the full flow, or a field name HTTPTypes refuses.
    private static func plainRequest(_ head: HTTPRequestHead) -> HTTPRequest? {
        guard head.method == .GET || head.method == .HEAD else { return nil }
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
            switch PlainRequestHead.role(of: fieldName, value: value) {
            case .kept: fields.append(HTTPField(name: fieldName, value: value))
            case .dropped: continue
            case .fullFlow: return nil
            }
        }
        return HTTPRequest(method: head.method == .GET ? .get : .head, scheme: "http", authority: authority, path: head.uri, headerFields: fields)
    }
}
