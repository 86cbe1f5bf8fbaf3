import Foundation
import HTTPTypes

/// What responses to methods other than GET do to stored GET responses, besides
/// invalidation: a `HEAD` response freshens or discards them (RFC 9111 §4.3.5), and a `POST`
/// response that says it is the current representation of the target may answer a later
/// `GET` (RFC 9110 §9.3.3).
extension HTTPCache {
    /// Applies a `200` answer to `HEAD` to the stored `GET` response it selects: the same
    /// validators and length freshen its fields (as a `304` would), when the storage rules
    /// let the answer update it (``admitUpdate(of:by:for:requestTime:responseTime:)``);
    /// different ones, or another `Vary`, discard it, since the stored content no longer
    /// matches what the origin has.
    func update(fromHead response: HTTPResponse, request: HTTPRequest, key: PrimaryCacheKey, requestTime: Date, responseTime: Date) async {
        guard response.status == .ok, let stored = await lookup(request, key: key) else { return }
        let fields = response.headerFields
        var matches = true
        if let tag = fields[.eTag] { matches = matches && tag == stored.headerFields[.eTag] }
        if let modified = fields[.lastModified] { matches = matches && HTTPDate.parse(modified) == stored.lastModified }
        if let length = fields[.contentLength] { matches = matches && Int(length) == stored.bodyLength }
        guard matches else { return await removeVariant(stored, key: key) }
        switch admitUpdate(of: stored, by: response, for: request, requestTime: requestTime, responseTime: responseTime) {
        case .freshen(let admitted): await replace(admitted, key: key)
        case .keep: break
        case .drop: await removeVariant(stored, key: key)
        }
    }

    /// The response to store (body to come) for the `GET` a response to `request` may later
    /// answer, when it is a `POST` response that says it is the current representation of
    /// the target (`200` or `203`, explicit freshness, and a `Content-Location` naming the
    /// request URI: RFC 9110 §9.3.3) and RFC 9111 lets that `GET` store it (not `no-store`,
    /// not `private` in a shared cache…); `nil` otherwise, and then its body is not kept.
    func representationToStore(
        _ response: HTTPResponse, post request: HTTPRequest, key: PrimaryCacheKey, requestTime: Date, responseTime: Date
    ) -> AdmittedResponse? {
        guard request.method == .post, response.status.code == 200 || response.status.code == 203,
              let location = response.headerFields[.contentLocation], key.resolving(location) == key else { return nil }
        let directives = CacheControl.governing(response.headerFields, mode: mode)
        let explicit = directives.contains("max-age") || (mode == .shared && directives.contains("s-maxage"))
            || response.headerFields[.expires] != nil
        guard explicit else { return nil }
        var get = request
        get.method = .get
        return admit(response, body: Data(), for: get, requestTime: requestTime, responseTime: responseTime)
    }
}
