import HTTPTypes
import NIOCore
import NIOHTTP1
import StashCore
import StashHTTP
import StashHTTPWire

extension HTTPCachingProxy {
    /// The answer to `request`, read from a connection's raw bytes by ``PlainRequestHead``,
    /// when it is a fresh hit (``RawHitHandler``): the bytes of its head and its body (a
    /// small body joined to its head), the same bytes the full flow would send. Of its
    /// fields, only those the lookup needs are read (``PlainRequestFields``).
    ///
    /// Only plain HTTP/1.1 `GET` and `HEAD` requests in origin form qualify: no body, no
    /// `Cache-Control` or `Pragma` (whose directives the full flow weighs), no conditional
    /// or `Range` (whose answer is not the stored response), no `Connection` or `Expect`
    /// (which change how the connection goes on) (``PlainRequestHead``'s rules); and the
    /// cache answers only with a cache of this process
    /// (``StashHTTP/HTTPCache/freshHit(forPlain:authority:path:fields:)`` answers `nil` with
    /// shared storage, where another instance may have invalidated what this one last saw).
    /// The request must meet ``RequestAdmission``'s rule, as on every path; one it refuses
    /// goes to the decoder and ``RequestGate``, which answers it.
    func freshWire(to request: PlainRequestHead.Request, report: RequestReport) -> RawHitHandler.Answer? {
        let started = report.accessLog == nil ? nil : ContinuousClock.now
        let hosts: RequestAdmission.Hosts = request.authority.map { .one($0) } ?? .none
        guard case .admit(let path, let authority) = admission.decide(method: request.method, target: request.path, hosts: hosts, requiresHost: true),
              let (form, hit) = freshForm(method: request.method, authority: authority, path: path, fields: request.fields)
        else { return nil }
        let head = form.head(for: hit)
        let bytes = request.method == .head ? 0 : form.body.readableBytes
        report.record(method: request.method, target: request.path, status: Int(head.head.status.code), bytes: bytes, outcome: .hit, started: started)
        if request.method == .head { return (head.bytes, nil) }
        if let whole = head.whole { return (whole, nil) }
        return (head.bytes, form.body)
    }

    /// The prepared form of the fresh hit that answers a plain `GET` or `HEAD` for `path`
    /// (origin form, admitted) under `authority` (the cache key's), with `fields`: they carry no field
    /// that rules a fresh hit out, and none the proxy drops (``PlainRequestHead/FieldRole``).
    private func freshForm(
        method: HTTPRequest.Method, authority: String?, path: String, fields: some RequestFieldLines
    ) -> (WireForm, FreshHit)? {
        let target = cacheTarget(forPlain: authority, path: path)
        guard let hit = cache.freshHit(forPlain: method, authority: target.authority, path: target.path, fields: fields) else { return nil }
        onEventLoopAnswer?()
        return (hit.prepared { WireForm(body: hit.body) }, hit)
    }
}
