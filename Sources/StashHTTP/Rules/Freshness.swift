import Foundation
import HTTPTypes

/// Freshness lifetime (RFC 9111 §4.2.1) and heuristic freshness (§4.2.2).
extension StoredResponse {
    /// Status codes a cache may give a heuristic lifetime (RFC 9110 §15.1).
    static let heuristicallyCacheableStatuses: Set<Int> = [200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]

    /// How long this response stays fresh, in seconds, for a cache in `mode` (worked out
    /// when the response was set, by ``computedFreshnessLifetime(mode:)``).
    func freshnessLifetime(mode: HTTPCacheMode) -> TimeInterval {
        mode == .shared ? derived.sharedRules.lifetime : derived.privateRules.lifetime
    }

    /// How long this response stays fresh, in seconds, for a cache in `mode`.
    ///
    /// `s-maxage` (shared caches only), then `max-age`, then `Expires − Date`, then 10% of
    /// `Date − Last-Modified` for heuristically cacheable statuses or `public` responses.
    /// An invalid argument, an invalid `Expires` (such as `0`) or several `Expires` lines
    /// all mean "already stale".
    func computedFreshnessLifetime(mode: HTTPCacheMode) -> TimeInterval {
        let directives = cacheControl(mode: mode)
        if mode == .shared, let sharedMaxAge = directives.seconds("s-maxage") {
            return Self.lifetime(sharedMaxAge)
        }
        if let maxAge = directives.seconds("max-age") {
            return Self.lifetime(maxAge)
        }
        let dateValue = date ?? responseTime
        let expires = headerFields[values: .expires]
        if !expires.isEmpty {
            guard expires.count == 1, let expiry = HTTPDate.parse(expires[0]) else { return 0 }
            return max(0, expiry.timeIntervalSince(dateValue))
        }
        if let lastModified,
           Self.heuristicallyCacheableStatuses.contains(status) || directives.contains("public") {
            return max(0, dateValue.timeIntervalSince(lastModified)) / 10
        }
        return 0
    }

    private static func lifetime(_ seconds: CacheControl.DeltaSeconds) -> TimeInterval {
        if case .seconds(let value) = seconds { return TimeInterval(value) }
        return 0
    }
}

/// Age (RFC 9111 §4.2.3): how old a stored response is now.
extension StoredResponse {
    /// The `Age` field (RFC 9111 §5.1): a list or several lines count by their first member
    /// alone; a first member that is not a non-negative integer (a float, a negative number)
    /// is ignored and counts as zero.
    var ageValue: TimeInterval { parsed.ageValue }

    /// The corrected initial age plus the time spent in this cache.
    func currentAge(now: Date) -> TimeInterval {
        derived.correctedInitialAge + max(0, now.timeIntervalSince(responseTime))
    }

    /// The age the response had when it was received: the larger of what its `Date` says
    /// and what its `Age` says plus the time the request took.
    var computedCorrectedInitialAge: TimeInterval {
        let apparentAge = max(0, responseTime.timeIntervalSince(date ?? responseTime))
        let responseDelay = max(0, responseTime.timeIntervalSince(requestTime))
        return max(apparentAge, ageValue + responseDelay)
    }
}

extension StoredResponse.Derived {
    /// Works out what `response` will need at each lookup.
    init(_ response: StoredResponse) {
        correctedInitialAge = response.computedCorrectedInitialAge
        privateRules = Reuse.Rules(response, mode: .private)
        sharedRules = Reuse.Rules(response, mode: .shared)
    }
}
