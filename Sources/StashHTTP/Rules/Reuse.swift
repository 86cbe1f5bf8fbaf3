import Foundation
import HTTPTypes

/// Whether a stored response can answer a request without contacting the origin
/// (RFC 9111 §4, §4.2.4; RFC 5861).
enum Reuse: Sendable, Equatable {
    /// Fresh and acceptable to the request: serve it.
    case fresh
    /// Stale, but the request's `max-stale` accepts it: serve it.
    case staleAllowed
    /// Stale within `stale-while-revalidate`: serve it and revalidate in the background.
    case staleWhileRevalidate
    /// Must be validated with the origin (or replaced) before use.
    case mustValidate

    /// Decides how `stored` may answer a request with `fields` and `directives`, at `now`
    /// (of the fields it asks only whether `Authorization` is among them, in shared mode).
    static func decide(
        _ stored: StoredResponse, fields: some RequestFieldLines, directives: RequestDirectives,
        mode: HTTPCacheMode, now: Date
    ) -> Reuse {
        let rules = mode == .shared ? stored.derived.sharedRules : stored.derived.privateRules
        if directives.noCache || rules.noCache { return .mustValidate }
        if mode == .shared, !rules.reusableWithAuthorization, fields.carriesAuthorization {
            return .mustValidate
        }
        let lifetime = rules.lifetime
        let age = stored.currentAge(now: now)
        if let maxAge = directives.maxAge, age > TimeInterval(maxAge) { return .mustValidate }
        if lifetime > age {
            if let minFresh = directives.minFresh, lifetime - age < TimeInterval(minFresh) { return .mustValidate }
            return .fresh
        }
        let responseDirectives = stored.cacheControl(mode: mode)
        guard !forbidsStale(responseDirectives) else { return .mustValidate }
        let staleness = age - lifetime
        if let maxStale = directives.maxStale, staleness <= TimeInterval(maxStale) { return .staleAllowed }
        if case .seconds(let window) = responseDirectives.seconds("stale-while-revalidate"),
           staleness <= TimeInterval(window) {
            return .staleWhileRevalidate
        }
        return .mustValidate
    }

    /// What ``decide(_:fields:directives:mode:now:)`` reads of a stored response on every
    /// lookup, worked out when the response is stored.
    struct Rules: Sendable {
        /// ``StoredResponse/computedFreshnessLifetime(mode:)``.
        var lifetime: TimeInterval = 0
        /// `no-cache` without field names: every reuse must be validated.
        var noCache = false
        /// `public`, `s-maxage` or `must-revalidate`: a shared cache may reuse the response
        /// for a request with `Authorization` (RFC 9111 §3.5).
        var reusableWithAuthorization = false
        /// Whether a cache in this mode may answer with the response at all, fresh or stale:
        /// not when it says `no-store` (without `must-understand`), nor, in a shared cache,
        /// when it says `private` without field names or carries a `Set-Cookie`. The cache
        /// never stores such a response; one read from storage is left alone.
        var mayBeReused = true

        init() {}

        init(_ stored: StoredResponse, mode: HTTPCacheMode) {
            let directives = stored.cacheControl(mode: mode)
            lifetime = stored.computedFreshnessLifetime(mode: mode)
            noCache = directives.isUnqualified("no-cache")
            reusableWithAuthorization = directives.contains("public") || directives.contains("s-maxage")
                || directives.contains("must-revalidate")
            mayBeReused = !(directives.contains("no-store") && !directives.contains("must-understand"))
                && !(mode == .shared && (directives.isUnqualified("private") || stored.headerFields[.setCookie] != nil))
        }
    }

    /// Whether `stored` may be served stale because the origin could not be reached or
    /// answered with a server error (RFC 9111 §4.2.4, RFC 5861 §4).
    ///
    /// - parameter disconnected: the origin could not be reached at all, which the RFC
    ///   lets a cache answer with stale content unless the response forbids it.
    static func mayServeStaleOnError(
        _ stored: StoredResponse, directives: RequestDirectives, mode: HTTPCacheMode, now: Date, disconnected: Bool
    ) -> Bool {
        let responseDirectives = stored.cacheControl(mode: mode)
        guard !forbidsStale(responseDirectives), !responseDirectives.isUnqualified("no-cache") else { return false }
        let staleness = max(0, stored.currentAge(now: now) - stored.freshnessLifetime(mode: mode))
        if case .seconds(let window) = responseDirectives.seconds("stale-if-error"), staleness <= TimeInterval(window) {
            return true
        }
        if let window = directives.staleIfError, staleness <= TimeInterval(window) { return true }
        if let maxStale = directives.maxStale, staleness <= TimeInterval(maxStale) { return true }
        return disconnected
    }

    /// `must-revalidate`, `proxy-revalidate` and `s-maxage` forbid serving stale content.
    /// The last two only bind shared caches, but a private cache may always decline to
    /// serve stale, so they are honoured in both modes.
    private static func forbidsStale(_ directives: CacheControl) -> Bool {
        directives.contains("must-revalidate") || directives.contains("proxy-revalidate") || directives.contains("s-maxage")
    }
}
