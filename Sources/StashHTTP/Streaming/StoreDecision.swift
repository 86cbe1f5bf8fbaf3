import StashCore

/// Runs its action once, when a streaming body's store is decided (stored, or abandoned:
/// failed, outgrew its limits, nothing to store), or at the latest when the body holding it
/// is dropped unread. What lets the followers of a collapsed miss go
/// (``HTTPCache/collapsesRequests``). Thread-safe.
final class StoreDecision: Sendable {
    private let action: LockedValue<(@Sendable () -> Void)?>

    init(_ action: @escaping @Sendable () -> Void) { self.action = LockedValue(action) }

    /// Runs the action, the first time only.
    func made() { action.withLock { action in defer { action = nil }; return action }?() }

    deinit { made() }
}
