package import Foundation
package import HTTPTypes

/// The synchronous "fresh hit, or nil" a server asks on its event loop before it hands a
/// request to the full asynchronous flow of ``HTTPCache/respond(to:body:policy:revalidatesInBackground:send:)``.
extension HTTPCache {
    /// The stored response that answers `request` as it is, fresh, right now; `nil` for
    /// anything else, which the caller then sends through `respond(to:…)`.
    ///
    /// ```swift
    /// if let hit = cache.freshHit(for: request) {
    ///     send(hit.answer())           // what `respond(to:…)` would have answered
    /// } else {
    ///     let answer = try await cache.respond(to: request) { try await transport.send($0, body: $1) }
    /// }
    /// ```
    ///
    /// The same rules as every other lookup (`Vary` selection, then ``Reuse``) on the
    /// variants held in memory: `nil` when only the disk holds them (a disk read does not
    /// belong on an event loop), with shared storage (another instance may have changed
    /// it), for methods other than `GET` and `HEAD`, and for requests whose answer is not
    /// the stored response itself (conditionals, `Range`). Only ``Reuse/fresh`` counts:
    /// stale responses, even ones the request accepts, take the full flow, and so do bodies
    /// kept in a file (streamed from it, not from memory). Counts a hit in
    /// ``statistics`` as `respond(to:…)` does.
    package func freshHit(for request: HTTPRequest) -> FreshHit? {
        guard !Self.conditionalNames.containsAny(of: request.headerFields), let key = PrimaryCacheKey(request) else { return nil }
        return freshHit(key: key, method: request.method, fields: request.headerFields, directives: RequestDirectives(request.headerFields), target: .request(request))
    }

    /// ``freshHit(for:)`` for a plain request read by a server's parser, which looked at
    /// every field as it read it and found none of ``fieldsAPlainRequestLacks``: an `http`
    /// request for `path` (origin form) at `authority`, of whose fields the lookup reads
    /// only the ones a stored response's `Vary` names and whether `Authorization` is there
    /// (``RequestFieldLines``). Nothing else of them is made: no `HTTPRequest`, no
    /// `HTTPFields`, and the `HTTPRequest` that ``FreshHit/answer()`` serves only when it is
    /// called.
    ///
    /// ```swift
    /// // Each field was checked against HTTPCache.fieldsAPlainRequestLacks as it was read.
    /// if let hit = cache.freshHit(forPlain: .get, authority: "example.com", path: "/page", fields: head.fields) { … }
    /// ```
    package func freshHit(forPlain method: HTTPRequest.Method, authority: String, path: String, fields: some RequestFieldLines) -> FreshHit? {
        guard !authority.isEmpty, let key = PrimaryCacheKey(scheme: "http", authority: authority, path: path) else { return nil }
        return freshHit(key: key, method: method, fields: fields, directives: RequestDirectives(), target: .plain(authority: authority, path: path))
    }

    /// The request fields a plain request (``freshHit(forPlain:authority:path:fields:)``)
    /// carries none of: conditionals and `Range`, which make a hit's answer a `304`, `206`,
    /// `412` or `416` rather than the stored response, and `Cache-Control` and `Pragma`,
    /// whose directives the lookup would weigh.
    package static let fieldsAPlainRequestLacks: [HTTPField.Name] = conditionalNames.members + [.cacheControl, .pragma]

    private func freshHit(
        key: PrimaryCacheKey, method: HTTPRequest.Method, fields: some RequestFieldLines, directives: RequestDirectives,
        target: FreshHit.Target
    ) -> FreshHit? {
        guard method == .get || method == .head,
              let (_, stored, reuse, now) = localCandidate(key: key, fields: fields, directives: directives, memoryOnly: true), reuse == .fresh,
              stored.bodyFile == nil else { return nil }
        record { $0.hits += 1; $0.bytesSaved += stored.bodyLength }
        return FreshHit(cache: self, stored: stored, method: method, target: target, now: now)
    }

    /// Conditionals and `Range`.
    private static let conditionalNames = FieldNameSet(Validation.conditionalFields + [.range])
}

/// A fresh stored response found by ``HTTPCache/freshHit(for:)`` or
/// ``HTTPCache/freshHit(forPlain:authority:path:fields:)``.
///
/// ```swift
/// let form = hit.prepared { WireForm(body: hit.body) } // built once per stored response
/// ```
package struct FreshHit: Sendable {
    let cache: HTTPCache
    let stored: StoredResponse
    /// The method of the request it answers (`GET` or `HEAD`).
    package let method: HTTPRequest.Method
    let target: Target
    let now: Date

    /// The request a hit answers, as far as ``answer()`` needs it.
    enum Target: Sendable {
        /// The request itself (``HTTPCache/freshHit(for:)``).
        case request(HTTPRequest)
        /// A plain request (``HTTPCache/freshHit(forPlain:authority:path:fields:)``): its
        /// answer depends on its method alone (it carries no conditional and no `Range`), so
        /// the request is made without its fields, and only when ``answer()`` is called.
        case plain(authority: String, path: String)
    }

    /// The `Age` field value the answer carries now.
    package var age: String { StoredResponse.ageField(stored.currentAge(now: now)) }

    /// The stored content.
    package var body: Data { stored.body }

    /// The answer `respond(to:…)` gives the same request at the same moment. A server calls
    /// it when the `Age` it sends changes (once a second per stored response), not per hit.
    package func answer() -> CachedHTTPResponse {
        let request = switch target {
        case let .request(request): request
        case let .plain(authority, path): HTTPRequest(method: method, scheme: "http", authority: authority, path: path)
        }
        let (response, body) = cache.serve(stored, to: request, outcome: .cache, now: now)
        // ``HTTPCache/freshHit(for:)`` leaves out bodies kept in files: answering one with an
        // empty body under its `Content-Length` would break the connection's framing.
        guard case let .data(data) = body else { preconditionFailure("a fresh hit's body is kept in a file") }
        return CachedHTTPResponse(response: response, body: data, outcome: .cache)
    }

    /// What a server prepared for sending this stored response, made by `make` the first
    /// time and kept with the response (until it is replaced, freshened or evicted). Copies
    /// of the stored response share it; it is never stored or compared.
    package func prepared<Form: AnyObject & Sendable>(_ make: () -> Form) -> Form {
        stored.prepared(make)
    }
}
