public import Foundation

/// The source of "now" for everything in Stash that expires.
///
/// Caches, preferences with expiry and HTTP freshness all read time through a clock, so that
/// tests (yours and ours) move time forward instead of sleeping.
///
/// ```swift
/// let clock = ManualClock()
/// let cache = MemoryCache<String, Int>(configuration: .init(clock: clock))
/// clock.advance(by: 3600)
/// ```
public protocol StashClock: Sendable {
    /// The current wall-clock time.
    var now: Date { get }
}

/// The system's wall clock. The default everywhere.
public struct SystemClock: StashClock {
    public init() {}
    public var now: Date { Date() }
}

extension StashClock where Self == SystemClock {
    /// The system's wall clock.
    public static var system: SystemClock { SystemClock() }
}

/// A clock that only moves when told to. Thread-safe.
///
/// ```swift
/// let clock = ManualClock(now: Date(timeIntervalSince1970: 0))
/// clock.advance(by: 60)
/// clock.now // 1970-01-01 00:01:00
/// ```
public final class ManualClock: StashClock, @unchecked Sendable {
    private let lock = Lock()
    private var current: Date

    /// Creates a clock stopped at `now` (by default, the current time).
    public init(now: Date = Date()) { current = now }

    public var now: Date { lock.withLock { current } }

    /// Moves the clock forward (or backward, with a negative interval).
    public func advance(by seconds: TimeInterval) {
        lock.withLock { current = current.addingTimeInterval(seconds) }
    }

    /// Sets the clock to `date`.
    public func set(_ date: Date) {
        lock.withLock { current = date }
    }
}

extension SystemClock {
    /// The wall clock in seconds since the reference date, read from the kernel's coarse
    /// clock where there is one (Linux: `CLOCK_REALTIME_COARSE`, a few milliseconds of
    /// resolution, a fraction of the cost of a precise read); elsewhere as `now`. For hot
    /// paths whose deadlines tolerate that resolution (``MemoryCache`` reads it on each
    /// write).
    @inlinable
    package static var coarseReferenceSeconds: Double {
        #if os(Linux)
        var time = timespec()
        clock_gettime(CLOCK_REALTIME_COARSE, &time)
        return Double(time.tv_sec) - Date.timeIntervalBetween1970AndReferenceDate + Double(time.tv_nsec) / 1e9
        #else
        return Date().timeIntervalSinceReferenceDate
        #endif
    }
}
