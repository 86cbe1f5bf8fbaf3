public import Foundation
public import HTTPTypes
import StashCore

/// Storing and looking up directly, the way URLCache's `storeCachedResponse` and
/// `cachedResponse(for:)` work.
extension HTTPCache {
    /// Stores `response` to `request` when RFC 9111 allows it, and says whether it did.
    /// With ``sharedStorage`` the write runs in the background (``flush()`` waits for it).
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
        guard let stored = storable(response, body: body, for: request, requestTime: requestTime ?? now, responseTime: responseTime ?? now)
        else { return false }
        if sharedStorage != nil {
            writeInBackground(for: key) { await self.replace(stored, key: key) }
        } else {
            setLocalVariants(Self.replacing(stored, in: localVariants(for: key)), for: key)
        }
        return true
    }

    /// The stored response that may answer `request` now without the origin (fresh, or
    /// acceptable to its `max-stale`), or `nil`.
    ///
    /// ```swift
    /// if let hit = cache.cachedResponse(for: request) { show(hit.body) }
    /// ```
    ///
    /// With ``sharedStorage`` this answers `nil` without looking, since it cannot wait for
    /// the storage: send the request through ``respond(to:body:policy:revalidatesInBackground:send:)``
    /// with `Cache-Control: only-if-cached` to get a stored response or a `504`.
    public func cachedResponse(for request: HTTPRequest) -> CachedHTTPResponse? {
        // Decided before a body file is read: a response that must be validated reads nothing.
        guard let (candidate, reuse, now) = localCandidate(for: request, memoryOnly: false), reuse != .mustValidate,
              let stored = loadingBody(candidate) else { return nil }
        return serve(stored, to: request, outcome: .cache, now: now)
    }

    /// The variant of this process's storage that `request` selects and how it may be
    /// reused now; `nil` with shared storage or when nothing is stored. `memoryOnly` leaves
    /// out what only the disk holds (for callers that must not wait for a disk read).
    func localCandidate(for request: HTTPRequest, memoryOnly: Bool) -> (stored: StoredResponse, reuse: Reuse, now: Date)? {
        guard sharedStorage == nil, let key = PrimaryCacheKey(request) else { return nil }
        let variants = memoryOnly ? memoryVariants(for: key) : localVariants(for: key)
        guard let stored = Self.select(request, from: variants) else { return nil }
        let now = clock.now
        return (stored, Reuse.decide(stored, request: request, directives: RequestDirectives(request.headerFields), mode: mode, now: now), now)
    }

    /// The most recent stored variant matching `request`'s `Vary`-selected fields.
    func lookup(_ request: HTTPRequest, key: PrimaryCacheKey) async -> StoredResponse? {
        Self.select(request, from: await variants(for: key))
    }

    /// The most recent of `variants` matching `request`'s `Vary`-selected fields.
    static func select(_ request: HTTPRequest, from variants: [StoredResponse]) -> StoredResponse? {
        var selector = Vary.Selector(request.headerFields)
        var best: StoredResponse?
        for variant in variants where selector.matches(variant) {
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

    /// Stores `response` if allowed, replacing the variant with the same secondary key;
    /// `variants` are the URL's variants when the caller has just read them.
    func store(
        _ response: HTTPResponse, body: Data, for request: HTTPRequest, key: PrimaryCacheKey,
        requestTime: Date, responseTime: Date, variants: [StoredResponse]? = nil
    ) async -> StoredResponse? {
        guard let stored = storable(response, body: body, for: request, requestTime: requestTime, responseTime: responseTime) else {
            return nil
        }
        await replace(stored, key: key, in: variants)
        return stored
    }

    /// `response` as the cache would keep it, or `nil` when RFC 9111 does not allow storing it.
    func storable(_ response: HTTPResponse, body: Data, for request: HTTPRequest, requestTime: Date, responseTime: Date) -> StoredResponse? {
        guard StorageRules.canStore(request: request, response: response, mode: mode),
              let varyNames = Vary.names(response.headerFields) else { return nil }
        return StoredResponse(
            status: response.status.code,
            reasonPhrase: response.status.reasonPhrase,
            headerFields: StorageRules.storableFields(response.headerFields, mode: mode),
            body: body,
            requestTime: requestTime,
            responseTime: responseTime,
            selectingFields: Vary.selectingFields(names: varyNames, request: request.headerFields)
        )
    }

    /// Puts `stored` in place of the variant with the same selecting fields, among those
    /// stored now. `known`, the variants the caller read before its trip to the origin,
    /// saves the read (a round trip with shared storage) only when they hold no other
    /// variant: writing back other variants read seconds ago could revive what an
    /// invalidation removed meanwhile (RFC 9111 §4.4) or drop what another instance added.
    func replace(_ stored: StoredResponse, key: PrimaryCacheKey, in known: [StoredResponse]? = nil) async {
        let current: [StoredResponse]
        if let known, known.allSatisfy({ $0.selectingFields == stored.selectingFields }) {
            current = []
        } else {
            current = await variants(for: key)
        }
        await setVariants(Self.replacing(stored, in: current), for: key)
    }

    /// `variants` with `stored` in place of the one with the same selecting fields, the
    /// oldest dropped past ``maximumVariants``.
    static func replacing(_ stored: StoredResponse, in variants: [StoredResponse]) -> [StoredResponse] {
        var variants = variants.filter { $0.selectingFields != stored.selectingFields }
        variants.append(stored)
        if variants.count > maximumVariants { variants.removeFirst(variants.count - maximumVariants) }
        return variants
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
