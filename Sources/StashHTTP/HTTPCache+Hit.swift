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
        guard !Self.conditionalNames.containsAny(of: request.headerFields) else { return nil }
        return freshHit(for: request, directives: RequestDirectives(request.headerFields))
    }

    /// ``freshHit(for:)`` for a request whose fields the caller has read and found none of
    /// ``fieldsAPlainRequestLacks`` in (a server's parser, which looks at every field
    /// anyway): nothing is looked for in its fields again but the `Vary`-named ones.
    ///
    /// ```swift
    /// // Each field was checked against HTTPCache.fieldsAPlainRequestLacks as it was read.
    /// if let hit = cache.freshHit(forPlain: request) { … }
    /// ```
    package func freshHit(forPlain request: HTTPRequest) -> FreshHit? {
        assert(!Self.plainExclusions.containsAny(of: request.headerFields), "not a plain request")
        return freshHit(for: request, directives: RequestDirectives())
    }

    /// The request fields a plain request (``freshHit(forPlain:)``) carries none of:
    /// conditionals and `Range`, which make a hit's answer a `304`, `206`, `412` or `416`
    /// rather than the stored response, and `Cache-Control` and `Pragma`, whose directives
    /// the lookup would weigh.
    package static let fieldsAPlainRequestLacks: [HTTPField.Name] = conditionalNames.members + [.cacheControl, .pragma]

    private func freshHit(for request: HTTPRequest, directives: RequestDirectives) -> FreshHit? {
        guard request.method == .get || request.method == .head,
              let (_, stored, reuse, now) = localCandidate(for: request, directives: directives, memoryOnly: true), reuse == .fresh,
              stored.bodyFile == nil else { return nil }
        record { $0.hits += 1; $0.bytesSaved += stored.bodyLength }
        return FreshHit(cache: self, stored: stored, request: request, now: now)
    }

    private static let plainExclusions = FieldNameSet(fieldsAPlainRequestLacks)

    /// Conditionals and `Range`.
    private static let conditionalNames = FieldNameSet(Validation.conditionalFields + [.range])
}

/// A fresh stored response found by ``HTTPCache/freshHit(for:)``.
///
/// ```swift
/// let form = hit.prepared { WireForm(body: hit.body) } // built once per stored response
/// ```
package struct FreshHit: Sendable {
    let cache: HTTPCache
    let stored: StoredResponse
    /// The request it answers.
    package let request: HTTPRequest
    let now: Date

    /// The `Age` field value the answer carries now.
    package var age: String { StoredResponse.ageField(stored.currentAge(now: now)) }

    /// The stored content.
    package var body: Data { stored.body }

    /// The answer `respond(to:…)` gives the same request at the same moment.
    package func answer() -> CachedHTTPResponse {
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
