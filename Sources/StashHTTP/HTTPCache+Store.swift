public import Foundation
public import HTTPTypes
import StashCore

/// Storing and looking up directly, the way URLCache's `storeCachedResponse` and
/// `cachedResponse(for:)` work.
extension HTTPCache {
    /// Stores `response` to `request` when RFC 9111 allows it, and says whether it did.
    ///
    /// ```swift
    /// cache.storeResponse(response, body: data, for: request)
    /// ```
    ///
    /// - parameters:
    ///   - requestTime: When the request was sent (defaults to now).
    ///   - responseTime: When the response arrived (defaults to now).
    @discardableResult
    public func storeResponse(
        _ response: HTTPResponse, body: Data, for request: HTTPRequest,
        requestTime: Date? = nil, responseTime: Date? = nil
    ) -> Bool {
        guard let key = PrimaryCacheKey(request) else { return false }
        let now = clock.now
        return store(response, body: body, for: request, key: key, requestTime: requestTime ?? now, responseTime: responseTime ?? now) != nil
    }

    /// The stored response that may answer `request` now without the origin (fresh, or
    /// acceptable to its `max-stale`), or `nil`.
    ///
    /// ```swift
    /// if let hit = cache.cachedResponse(for: request) { show(hit.body) }
    /// ```
    public func cachedResponse(for request: HTTPRequest) -> CachedHTTPResponse? {
        guard let key = PrimaryCacheKey(request), let stored = lookup(request, key: key) else { return nil }
        let now = clock.now
        switch Reuse.decide(stored, request: request, directives: RequestDirectives(request.headerFields), mode: mode, now: now) {
        case .fresh, .staleAllowed, .staleWhileRevalidate:
            return serve(stored, to: request, outcome: .cache, now: now)
        case .mustValidate:
            return nil
        }
    }

    /// The most recent stored variant matching `request`'s `Vary`-selected fields.
    func lookup(_ request: HTTPRequest, key: PrimaryCacheKey) -> StoredResponse? {
        var selector = Vary.Selector(request.headerFields)
        var best: StoredResponse?
        for variant in variants(for: key) where selector.matches(variant) {
            guard let current = best else {
                best = variant
                continue
            }
            if (current.date ?? current.responseTime, current.responseTime) < (variant.date ?? variant.responseTime, variant.responseTime) {
                best = variant
            }
        }
        return best
    }

    /// Stores `response` if allowed, replacing the variant with the same secondary key.
    func store(
        _ response: HTTPResponse, body: Data, for request: HTTPRequest, key: PrimaryCacheKey,
        requestTime: Date, responseTime: Date
    ) -> StoredResponse? {
        guard StorageRules.canStore(request: request, response: response, mode: mode),
              let varyNames = Vary.names(response.headerFields) else { return nil }
        let stored = StoredResponse(
            status: response.status.code,
            reasonPhrase: response.status.reasonPhrase,
            headerFields: StorageRules.storableFields(response.headerFields, mode: mode),
            body: body,
            requestTime: requestTime,
            responseTime: responseTime,
            selectingFields: Vary.selectingFields(names: varyNames, request: request.headerFields)
        )
        replace(stored, key: key)
        return stored
    }

    /// Puts `stored` in place of the variant with the same selecting fields.
    func replace(_ stored: StoredResponse, key: PrimaryCacheKey) {
        var variants = variants(for: key).filter { $0.selectingFields != stored.selectingFields }
        variants.append(stored)
        if variants.count > Self.maximumVariants { variants.removeFirst(variants.count - Self.maximumVariants) }
        setVariants(variants, for: key)
    }

    /// How many variants of one URL are kept; the oldest go first.
    static let maximumVariants = 16

    /// `stored` as an answer to `request`: a `304` when the request's own conditions
    /// match, no body for `HEAD`, the requested bytes (`206`) for a `Range` request, and a
    /// current `Age`.
    func serve(_ stored: StoredResponse, to request: HTTPRequest, outcome: HTTPCacheOutcome, now: Date) -> CachedHTTPResponse {
        let age = stored.currentAge(now: now)
        if Validation.clientConditionMatches(request, stored: stored) {
            return CachedHTTPResponse(response: Validation.notModifiedResponse(from: stored, age: age), body: Data(), outcome: outcome)
        }
        if request.method == .head { return CachedHTTPResponse(response: stored.response(age: age), body: Data(), outcome: outcome) }
        let (response, body) = ByteRange.response(ByteRange.answer(request, stored: stored), from: stored, age: age)
        return CachedHTTPResponse(response: response, body: body, outcome: outcome)
    }

    /// The `504` a cache answers when it may not contact the origin and holds nothing usable.
    func unavailable() -> CachedHTTPResponse {
        var fields = HTTPFields()
        fields[.contentLength] = "0"
        return CachedHTTPResponse(response: HTTPResponse(status: .gatewayTimeout, headerFields: fields), body: Data(), outcome: .unavailable)
    }
}
