package import Foundation
package import HTTPTypes
import StashCache
import StashCore

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
    /// stale responses, even ones the request accepts, take the full flow. Counts a hit in
    /// ``statistics`` as `respond(to:…)` does.
    package func freshHit(for request: HTTPRequest) -> FreshHit? {
        guard sharedStorage == nil, request.method == .get || request.method == .head,
              !Self.asksForPartOrCondition(request.headerFields),
              let key = PrimaryCacheKey(request),
              let variants = memory.value(forKey: key.storageKey),
              let stored = Self.select(request, from: variants) else { return nil }
        let now = clock.now
        guard Reuse.decide(stored, request: request, directives: RequestDirectives(request.headerFields), mode: mode, now: now) == .fresh
        else { return nil }
        record { $0.hits += 1; $0.bytesSaved += stored.body.count }
        return FreshHit(cache: self, stored: stored, request: request, now: now)
    }

    /// Whether `fields` carry a condition or a `Range`, which make a hit's answer a `304`,
    /// `206`, `412` or `416` rather than the stored response.
    private static func asksForPartOrCondition(_ fields: HTTPFields) -> Bool {
        fields.contains { conditionalNames.contains($0.name) }
    }

    private static let conditionalNames: Set<HTTPField.Name> = [.ifMatch, .ifNoneMatch, .ifModifiedSince, .ifUnmodifiedSince, .ifRange, .range]
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
    package func answer() -> CachedHTTPResponse { cache.serve(stored, to: request, outcome: .cache, now: now) }

    /// What a server prepared for sending this stored response, made by `make` the first
    /// time and kept with the response (until it is replaced, freshened or evicted).
    package func prepared<Form: AnyObject & Sendable>(_ make: () -> Form) -> Form {
        stored.prepared.value(make)
    }
}

/// A server's ready-to-send form of one stored response (its wire bytes), kept beside it so
/// that each hit does not encode it again. Copies of a ``StoredResponse`` share it; changing
/// the response's fields or body gives it a new, empty one. Never part of equality or of
/// the stored encoding.
package final class PreparedForm: Sendable, Equatable {
    private let form = LockedValue<(any AnyObject & Sendable)?>(nil)

    init() {}

    /// The form kept here, or the one `make` returns (then kept) when there is none of that type.
    func value<Form: AnyObject & Sendable>(_ make: () -> Form) -> Form {
        if let kept = form.withLock({ $0 }) as? Form { return kept }
        let made = make()
        return form.withLock { kept in
            if let existing = kept as? Form { return existing }
            kept = made
            return made
        }
    }

    package static func == (lhs: PreparedForm, rhs: PreparedForm) -> Bool { true }
}
