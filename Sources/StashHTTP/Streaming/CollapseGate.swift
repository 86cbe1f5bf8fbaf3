import StashCore

/// What identical concurrent misses wait on while the first one's trip to the origin runs:
/// opened once, when it is decided whether that response is stored (at once when it may not
/// be; else when its body is stored, or failed, outgrew the limits or was dropped) or the
/// trip failed. A waiter stops waiting when it is cancelled or after its time limit (a
/// slow client of the first request must not hold the others back: they then go to the
/// origin themselves, as nginx's `proxy_cache_lock_timeout` does). Thread-safe.
final class CollapseGate: Sendable {
    private struct State {
        var isOpen = false
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        /// Waiters let go (cancelled or timed out) before they started waiting.
        var released: Set<UInt64> = []
        var nextID: UInt64 = 0
    }
    private let state = LockedValue(State())

    /// How many callers wait now (for tests).
    var waiting: Int { state.withLock { $0.waiters.count } }

    /// Opens the gate and lets every waiter go; later calls do nothing.
    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard !state.isOpen else { return [] }
            state.isOpen = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the gate is open, after `limit`, or at once when the calling task is
    /// cancelled, whichever comes first.
    func wait(atMost limit: Duration) async {
        let id = state.withLock { state -> UInt64 in
            defer { state.nextID &+= 1 }
            return state.nextID
        }
        let timer = Task {
            try await Task.sleep(for: limit)
            self.release(id)
        }
        defer { timer.cancel() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let goNow = state.withLock { state -> Bool in
                    if state.isOpen || state.released.remove(id) != nil { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if goNow { continuation.resume() }
            }
        } onCancel: {
            release(id)
        }
    }

    /// Lets waiter `id` go now, whether it waits already or is about to.
    private func release(_ id: UInt64) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if let waiter = state.waiters.removeValue(forKey: id) { return waiter }
            if !state.isOpen { state.released.insert(id) }
            return nil
        }
        waiter?.resume()
    }
}
