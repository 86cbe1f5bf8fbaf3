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
    ///   - response: The response the origin sent.
    ///   - body: The response's whole body.
    ///   - request: The request it answers.
    ///   - requestTime: When the request was sent (defaults to now).
    ///   - responseTime: When the response arrived (defaults to now).
    @discardableResult
    public func storeResponse(
        _ response: HTTPResponse, body: Data, for request: HTTPRequest,
        requestTime: Date? = nil, responseTime: Date? = nil
    ) -> Bool {
        guard let key = PrimaryCacheKey(request) else { return false }
        let now = clock.now
        guard let admitted = admit(response, body: body, for: request, requestTime: requestTime ?? now, responseTime: responseTime ?? now)
        else { return false }
        if sharedStorage != nil {
            writeInBackground(for: key) { await self.replace(admitted, key: key) }
        } else {
            let current = localVariants(for: key)
            setLocalVariants(Self.replacing(admitted.stored, in: current), replacing: current, for: key)
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
        guard sharedStorage == nil, let key = PrimaryCacheKey(request) else { return nil }
        // Nearly every request carries none of the fields that weigh on reuse or make the
        // answer other than the stored response: found so in one pass over its fields, it is
        // answered without parsing directives or looking for conditionals and `Range`.
        let plain = !Self.fieldsAPlainRequestLacksSet.containsAny(of: request.headerFields)
        let directives = plain ? RequestDirectives() : RequestDirectives(request.headerFields)
        // Decided before a body file is read: a response that must be validated reads nothing,
        // and the answer reads only what it sends (a range its range, HEAD and 304 nothing).
        guard let (stored, reuse, now) = localCandidate(key: key, fields: request.headerFields, directives: directives, memoryOnly: false),
              reuse != .mustValidate else { return nil }
        let (response, body) = plain ? serve(stored, toPlain: request.method, now: now) : serve(stored, to: request, now: now)
        guard let data = loaded(body, of: key) else { return nil }
        return CachedHTTPResponse(response: response, body: data, outcome: .cache)
    }

    /// The variant of this process's storage that a request selects, known by its primary
    /// key and its fields (of which only those the lookup needs are read:
    /// ``RequestFieldLines``), and how it may be reused now; `nil` with shared storage or
    /// when nothing is stored. `memoryOnly` leaves out what only the disk holds (for callers
    /// that must not wait for a disk read).
    func localCandidate(
        key: PrimaryCacheKey, fields: some RequestFieldLines, directives: RequestDirectives, memoryOnly: Bool
    ) -> (stored: StoredResponse, reuse: Reuse, now: Date)? {
        guard sharedStorage == nil else { return nil }
        let variants = memoryOnly ? memoryVariants(for: key) : localVariants(for: key)
        guard let stored = select(fields, from: variants) else { return nil }
        let now = clock.now
        return (stored, Reuse.decide(stored, fields: fields, directives: directives, mode: mode, now: now), now)
    }

    /// The most recent stored variant matching `request`'s `Vary`-selected fields.
    func lookup(_ request: HTTPRequest, key: PrimaryCacheKey) async -> StoredResponse? {
        select(request.headerFields, from: await variants(for: key))
    }

    /// The most recent of `variants` matching the `Vary`-selected fields of a request with
    /// `fields`, leaving out any this cache's ``mode`` may never reuse (``Reuse/Rules/mayBeReused``:
    /// an entry that came from elsewhere, a shared table or a folder a private cache wrote,
    /// holding what a shared cache must not serve).
    func select(_ fields: some RequestFieldLines, from variants: [StoredResponse]) -> StoredResponse? {
        var selector = Vary.Selector(fields)
        var best: StoredResponse?
        let shared = mode == .shared
        for variant in variants where (shared ? variant.derived.sharedRules : variant.derived.privateRules).mayBeReused && selector.matches(variant) {
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

    /// Puts `admitted` in place of the variant with the same selecting fields, among those
    /// stored now. `known`, the variants the caller read before its trip to the origin,
    /// saves the read (a round trip with shared storage) only when they hold no other
    /// variant: writing back other variants read seconds ago could revive what an
    /// invalidation removed meanwhile (RFC 9111 §4.4) or drop what another instance added.
    func replace(_ admitted: AdmittedResponse, key: PrimaryCacheKey, in known: [StoredResponse]? = nil) async {
        let stored = admitted.stored
        if let known, known.allSatisfy({ $0.selectingFields == stored.selectingFields }) {
            await setVariants([stored], replacing: known, for: key)
            return
        }
        let current = await variants(for: key)
        await setVariants(Self.replacing(stored, in: current), replacing: current, for: key)
    }

    /// Removes `stored` from `key`'s variants (an answer showed it no longer describes what
    /// the origin has, or selects by other fields).
    func removeVariant(_ stored: StoredResponse, key: PrimaryCacheKey) async {
        let current = await variants(for: key)
        await setVariants(current.filter { $0 != stored }, replacing: current, for: key)
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

    /// Where the body of an answer made from a stored response is.
    enum BodySource: Equatable {
        /// In memory (empty for `HEAD`, `304`, `416`).
        case data(Data)
        /// These bytes of the body file under this disk cache key.
        case file(key: String, range: Range<Int>)
    }

    /// `stored` as an answer to `request`: a `304` when the request's own conditions
    /// match, no body for `HEAD`, the requested bytes (`206`) for a `Range` request, and a
    /// current `Age`. Nothing is read: a body kept in a file is named by its key and range,
    /// for ``streamed(_:to:key:outcome:now:)`` to stream or ``loaded(_:of:)`` to read.
    func serve(_ stored: StoredResponse, to request: HTTPRequest, now: Date) -> (HTTPResponse, BodySource) {
        if Validation.clientConditionMatches(request, stored: stored) {
            return (Validation.notModifiedResponse(from: stored, age: stored.currentAge(now: now)), .data(Data()))
        }
        let answer = request.method == .head ? .whole : ByteRange.answer(request, stored: stored)
        let bytes: Range<Int>
        switch answer {
        case .whole: return serve(stored, toPlain: request.method, now: now)
        case let .partial(range): bytes = range.lowerBound..<(range.upperBound + 1)
        case .unsatisfiable: return (ByteRange.head(answer, from: stored, age: stored.currentAge(now: now)), .data(Data()))
        }
        let response = ByteRange.head(answer, from: stored, age: stored.currentAge(now: now))
        if let file = stored.bodyFile { return (response, .file(key: file.key, range: bytes)) }
        let body = stored.body
        return (response, .data(body.subdata(in: (body.startIndex + bytes.lowerBound)..<(body.startIndex + bytes.upperBound))))
    }

    /// ``serve(_:to:now:)`` for a request with `method` that carries none of
    /// ``fieldsAPlainRequestLacks`` (no conditional, no `Range`): the stored response itself,
    /// without a body for `HEAD`, with a current `Age`.
    func serve(_ stored: StoredResponse, toPlain method: HTTPRequest.Method, now: Date) -> (HTTPResponse, BodySource) {
        let response = stored.response(age: stored.currentAge(now: now))
        if method == .head { return (response, .data(Data())) }
        if let file = stored.bodyFile { return (response, .file(key: file.key, range: 0..<file.length)) }
        return (response, .data(stored.body))
    }

    /// The `504` a cache answers when it may not contact the origin and holds nothing usable.
    func unavailable() -> CachedHTTPResponse {
        var fields = HTTPFields()
        fields[.contentLength] = "0"
        return CachedHTTPResponse(response: HTTPResponse(status: .gatewayTimeout, headerFields: fields), body: Data(), outcome: .unavailable)
    }
}
