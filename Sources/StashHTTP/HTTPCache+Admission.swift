import Foundation
import HTTPTypes

/// A response the storage rules let in: the only thing the cache writes as a variant of a
/// URL. Made in this file alone, by ``HTTPCache/admit(_:body:for:requestTime:responseTime:)``
/// (a new response) and ``HTTPCache/admitUpdate(of:by:for:requestTime:responseTime:)`` (a
/// `304` or `HEAD` answer freshening a stored one), both of which ask
/// ``StorageRules/canStore(request:response:mode:storesResponsesThatSetCookies:)``: so
/// that no path that writes or updates an entry skips the rules the path that stores a new
/// one applies (RFC 9111 §3, §3.5, §4.3.4, §4.3.5).
struct AdmittedResponse: Sendable {
    /// The variant to write.
    let stored: StoredResponse

    fileprivate init(_ stored: StoredResponse) { self.stored = stored }

    /// The same response with its whole body, which arrived after the decision.
    func with(body: (inout StoredResponse) -> Bool) -> AdmittedResponse? {
        var stored = stored
        guard body(&stored) else { return nil }
        return AdmittedResponse(stored)
    }
}

extension HTTPCache {
    /// `response` to `request` as the cache would keep it (its body to come, or `body`),
    /// or `nil` when RFC 9111 does not let a cache in this ``mode`` store it.
    func admit(_ response: HTTPResponse, body: Data, for request: HTTPRequest, requestTime: Date, responseTime: Date) -> AdmittedResponse? {
        guard StorageRules.canStore(request: request, response: response, mode: mode, storesResponsesThatSetCookies: storesResponsesThatSetCookies),
              let varyNames = Vary.names(response.headerFields) else { return nil }
        return AdmittedResponse(StoredResponse(
            status: response.status.code,
            reasonPhrase: response.status.reasonPhrase,
            headerFields: StorageRules.storableFields(response.headerFields, mode: mode),
            body: body,
            requestTime: requestTime,
            responseTime: responseTime,
            selectingFields: Vary.selectingFields(names: varyNames, request: request.headerFields)
        ))
    }

    /// What a `304` (or a `200` answer to `HEAD`) with the fields of `response`, answering
    /// `request`, does to `stored`, the variant it is about.
    enum Update {
        /// Replace the variant with this freshened one.
        case freshen(AdmittedResponse)
        /// Leave the variant as it is: the answer could not have been stored itself (`no-store`,
        /// `private` or a `Set-Cookie` in a shared cache, an authorized request's answer
        /// that is not explicitly shareable), so none of its fields or its freshness may
        /// reach the clients the variant serves.
        case keep
        /// Remove the variant: the answer selects variants by other fields (`Vary`), so the
        /// stored one no longer answers the requests it was kept for.
        case drop
    }

    /// The one decision on updating a stored variant, by RFC 9111 §4.3.4 (a `304`) and
    /// §4.3.5 (`HEAD`): the stored response with the answer's fields laid over it (RFC 9111
    /// §3.2) must be a response the cache could store for `request` (the same rules as a new
    /// one, §3.5 for an authorized request in a shared cache included), and select the
    /// same requests.
    func admitUpdate(of stored: StoredResponse, by response: HTTPResponse, for request: HTTPRequest, requestTime: Date, responseTime: Date) -> Update {
        let fields = response.headerFields
        if fields[.vary] != nil {
            guard let names = Vary.names(fields), names == stored.selectingFields.keys.sorted(),
                  Vary.selectingFields(names: names, request: request.headerFields) == stored.selectingFields else { return .drop }
        }
        // The response the origin would have sent in full: what the rules are asked about,
        // with every field of the answer, those a cache never keeps included.
        var whole = stored.headerFields
        for name in Set(fields.map(\.name)) { whole[values: name] = fields[values: name] }
        var get = request
        get.method = .get
        let candidate = HTTPResponse(status: .init(code: stored.status, reasonPhrase: stored.reasonPhrase), headerFields: whole)
        guard StorageRules.canStore(request: get, response: candidate, mode: mode, storesResponsesThatSetCookies: storesResponsesThatSetCookies) else {
            return .keep
        }
        return .freshen(AdmittedResponse(Validation.freshen(stored, with: fields, requestTime: requestTime, responseTime: responseTime, mode: mode)))
    }
}
