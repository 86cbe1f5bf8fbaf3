import Observation
import StashCore

/// Counts the `onChange` calls of one `withObservationTracking` of `read`: the tests of
/// Observation-compatible reads (`Preferences.Observed`, `LiveQuery`, `LiveObject`,
/// `Vault.Observed`) ask whether, not when, a change was told.
///
/// ```swift
/// let firings = ObservationFirings { _ = level.value }
/// try prefs.set(3, for: .level)
/// #expect(try await eventually { firings.count > 0 })
/// ```
public final class ObservationFirings: Sendable {
    private let fired = LockedValue(0)

    /// Tracks `read` once.
    public init(_ read: () -> Void) {
        withObservationTracking(read) { [fired] in fired.withLock { $0 += 1 } }
    }

    /// How many times `onChange` ran (a tracking ends at its first change: 0 or 1).
    public var count: Int { fired.withLock { $0 } }
}
