public import Foundation

/// When a cached entry or a preference stops being served: the one expiry vocabulary of
/// every Stash store (docs/API.md).
///
/// Every cache has a default expiry and every write may override it. Time is read from the
/// store's ``StashClock``, so tests move a `ManualClock` instead of sleeping. Expiry removes
/// a value; `CacheStore`'s freshness only marks it stale.
///
/// ```swift
/// cache.set(avatar, forKey: "ada", expiry: .after(7 * 24 * 3600))   // SDWebImage's week
/// cache.set(token, forKey: "session", expiry: .sliding(15 * 60))     // extends on each read
/// cache.set(banner, forKey: "sale", expiry: .at(saleEnd))
/// ```
public enum ExpiryPolicy: Sendable, Hashable {
    /// Kept until evicted by a limit or removed.
    case never
    /// Expires this many seconds after it was written.
    case after(TimeInterval)
    /// Expires at a fixed date.
    case at(Date)
    /// Expires this many seconds after it was last written or read: every hit extends it.
    case sliding(TimeInterval)

    /// The moment an entry written (or, for sliding expiry, last touched) at `now` expires,
    /// or `nil` when it never does.
    public func deadline(from now: Date) -> Date? {
        switch self {
        case .never: return nil
        case .after(let seconds), .sliding(let seconds): return now.addingTimeInterval(seconds)
        case .at(let date): return date
        }
    }

    /// Whether a read extends the deadline.
    public var isSliding: Bool {
        if case .sliding = self { return true }
        return false
    }
}
