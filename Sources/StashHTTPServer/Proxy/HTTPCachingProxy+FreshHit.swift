import HTTPTypes
import NIOCore
import NIOHTTP1
import StashCore
import StashHTTP
import StashHTTPWire

extension HTTPCachingProxy {
    /// The answer to `head`, as NIO's HTTP/1 decoder reports it and ``RequestGate`` admitted
    /// it (its target in origin form, its one `Host` the cache key's authority), when it is a
    /// fresh hit that may be sent from the event loop at once (``FreshHitHandler``), or `nil`
    /// to send it through the responder.
    ///
    /// Only plain HTTP/1.1 `GET` and `HEAD` requests in origin form qualify: no body, no
    /// `Cache-Control` or `Pragma` (whose directives the full flow weighs), no conditional
    /// or `Range` (whose answer is not the stored response), no `Connection` or `Expect`
    /// (which change how the connection goes on), no dot segment (``PlainRequestHead``'s
    /// rules); and the cache answers only with a cache of this process
    /// (``StashHTTP/HTTPCache/freshHit(forPlain:authority:path:fields:)`` answers `nil` with shared storage, where
    /// another instance may have invalidated what this one last saw).
    func freshAnswer(to head: HTTPRequestHead) -> FreshHitHandler.Answer? {
        guard head.version == .http1_1, head.uri.utf8.first == UInt8(ascii: "/"), head.method == .GET || head.method == .HEAD,
              let (authority, fields) = Self.plainFields(head) else { return nil }
        let method: HTTPRequest.Method = head.method == .GET ? .get : .head
        guard let (form, hit) = freshForm(method: method, authority: authority, path: head.uri, fields: fields, on: .decoded) else { return nil }
        return (form.head(for: hit).head, method == .head ? nil : form.body)
    }

    /// The answer to `request`, read from a connection's raw bytes by ``PlainRequestHead``,
    /// when it is a fresh hit (``RawHitHandler``): the bytes of its head and its body, as
    /// ``freshAnswer(to:)`` would have them written (a small body joined to its head). Of
    /// its fields, only those the lookup needs are read (``PlainRequestFields``).
    /// The request must meet ``RequestAdmission``'s rule, as on every path; one it refuses
    /// goes to the decoder and ``RequestGate``, which answers it.
    func freshWire(to request: PlainRequestHead.Request) -> RawHitHandler.Answer? {
        let hosts: RequestAdmission.Hosts = request.authority.map { .one($0) } ?? .none
        guard case .admit(let path, let authority) = admission.decide(method: request.method, target: request.path, hosts: hosts, requiresHost: true),
              let (form, hit) = freshForm(method: request.method, authority: authority, path: path, fields: request.fields, on: .raw)
        else { return nil }
        let head = form.head(for: hit)
        if request.method == .head { return (head.bytes, nil) }
        if let whole = head.whole { return (whole, nil) }
        return (head.bytes, form.body)
    }

    /// The prepared form of the fresh hit that answers a plain `GET` or `HEAD` for `path`
    /// (origin form, admitted) under `authority` (the cache key's), with `fields`: they carry no field
    /// that rules a fresh hit out, and none the proxy drops (``PlainRequestHead/FieldRole``).
    private func freshForm(
        method: HTTPRequest.Method, authority: String?, path: String, fields: some RequestFieldLines, on hitPath: EventLoopHitPath
    ) -> (WireForm, FreshHit)? {
        let target = cacheTarget(forPlain: authority, path: path)
        guard let hit = cache.freshHit(forPlain: method, authority: target.authority, path: target.path, fields: fields) else { return nil }
        onEventLoopAnswer?(hitPath)
        return (hit.prepared { WireForm(body: hit.body) }, hit)
    }

    /// The first `Host` of `head` (its authority) and its other fields, as ``PlainRequestHead``
    /// reads them (in order, but those the proxy never forwards), without going through
    /// `URLComponents`; `nil` when it carries a field that sends it through the full flow,
    /// or a field name HTTPTypes refuses.
    private static func plainFields(_ head: HTTPRequestHead) -> (authority: String?, fields: HTTPFields)? {
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
        return (authority, fields)
    }
}
