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
        return freshHit(key: key, method: request.method, fields: request.headerFields, directives: RequestDirectives(request.headerFields))
    }

    /// ``freshHit(for:)`` for a plain request read by a server's parser, which looked at
    /// every field as it read it and found none of ``fieldsAPlainRequestLacks``: an `http`
    /// request for `path` (origin form) at `authority`, of whose fields the lookup reads
    /// only the ones a stored response's `Vary` names and whether `Authorization` is there
    /// (``RequestFieldLines``). Nothing else of them is made: no `HTTPRequest`, no
    /// `HTTPFields` (the answer depends on the method alone).
    ///
    /// ```swift
    /// // Each field was checked against HTTPCache.fieldsAPlainRequestLacks as it was read.
    /// if let hit = cache.freshHit(forPlain: .get, authority: "example.com", path: "/page", fields: head.fields) { … }
    /// ```
    package func freshHit(forPlain method: HTTPRequest.Method, authority: String, path: String, fields: some RequestFieldLines) -> FreshHit? {
        guard !authority.isEmpty, let key = PrimaryCacheKey(scheme: "http", authority: authority, path: path) else { return nil }
        return freshHit(key: key, method: method, fields: fields, directives: RequestDirectives())
    }

    /// The request fields a plain request (``freshHit(forPlain:authority:path:fields:)``)
    /// carries none of: conditionals and `Range`, which make a hit's answer a `304`, `206`,
    /// `412` or `416` rather than the stored response, and `Cache-Control` and `Pragma`,
    /// whose directives the lookup would weigh.
    package static let fieldsAPlainRequestLacks: [HTTPField.Name] = conditionalNames.members + [.cacheControl, .pragma]

    /// ``fieldsAPlainRequestLacks``, to look for in a request's fields in one pass.
    static let fieldsAPlainRequestLacksSet = FieldNameSet(fieldsAPlainRequestLacks)

    private func freshHit(
        key: PrimaryCacheKey, method: HTTPRequest.Method, fields: some RequestFieldLines, directives: RequestDirectives
    ) -> FreshHit? {
        guard method == .get || method == .head,
              let (stored, reuse, now) = localCandidate(key: key, fields: fields, directives: directives, memoryOnly: true), reuse == .fresh,
              stored.bodyFile == nil else { return nil }
        record { $0.hits += 1; $0.addBytesSaved(stored.bodyLength) }
        return FreshHit(cache: self, stored: stored, method: method, now: now)
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
    let now: Date

    /// The `Age` field value the answer carries now.
    package var age: String { StoredResponse.ageField(stored.currentAge(now: now)) }

    /// The stored content.
    package var body: Data { stored.body }

    /// The answer `respond(to:…)` gives the same request at the same moment. A server calls
    /// it when the `Age` it sends changes (once a second per stored response), not per hit.
    /// The request carried no conditional and no `Range`, so the answer depends on its
    /// method alone.
    package func answer() -> CachedHTTPResponse {
        let (response, body) = cache.serve(stored, toPlain: method, now: now)
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
