import StashCore

/// What identical concurrent misses wait on while the first one's trip to the origin runs:
/// opened once, when it is decided whether that response is stored (at once when it may not
/// be; else when its body is stored, or failed, outgrew the limits or was dropped) or the
/// trip failed. A waiter stops waiting when it is cancelled or after its time limit (a
/// slow client of the first request must not hold the others back: they then go to the
/// origin themselves, as nginx's `proxy_cache_lock_timeout` does). Thread-safe.
final class CollapseGate: Sendable {
    /// One caller of ``wait(atMost:)``, from the moment it has an id until it returns.
    private enum Waiter {
        /// About to wait.
        case registered
        /// Let go (cancelled or timed out) before it started waiting.
        case released
        case waiting(CheckedContinuation<Void, Never>)
    }

    private struct State {
        var isOpen = false
        var waiters: [UInt64: Waiter] = [:]
        var nextID: UInt64 = 0
    }
    private let state = LockedValue(State())

    /// How many callers wait now (for tests).
    var waiting: Int {
        state.withLock { $0.waiters.values.reduce(0) { if case .waiting = $1 { $0 + 1 } else { $0 } } }
    }

    /// How many callers the gate keeps any record of: those inside ``wait(atMost:)`` (for
    /// tests: a caller that returned leaves nothing behind).
    var recorded: Int { state.withLock { $0.waiters.count } }

    /// Opens the gate and lets every waiter go; later calls do nothing.
    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard !state.isOpen else { return [] }
            state.isOpen = true
            defer { state.waiters = [:] }
            return state.waiters.values.compactMap { if case let .waiting(continuation) = $0 { continuation } else { nil } }
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the gate is open, after `limit`, or at once when the calling task is
    /// cancelled, whichever comes first. An open gate returns at once, starting no timer.
    func wait(atMost limit: Duration) async {
        let registered = state.withLock { state -> UInt64? in
            guard !state.isOpen else { return nil }
            defer { state.nextID &+= 1 }
            state.waiters[state.nextID] = .registered
            return state.nextID
        }
        guard let id = registered else { return }
        let timer = Task {
            try await Task.sleep(for: limit)
            self.release(id)
        }
        defer {
            timer.cancel()
            // A release that comes after this (a timer past its sleep) finds nothing to mark.
            _ = state.withLock { $0.waiters.removeValue(forKey: id) }
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let goNow = state.withLock { state -> Bool in
                    guard case .registered? = state.waiters[id] else {
                        // Released meanwhile, or the gate opened (which forgets every waiter).
                        state.waiters[id] = nil
                        return true
                    }
                    state.waiters[id] = .waiting(continuation)
                    return false
                }
                if goNow { continuation.resume() }
            }
        } onCancel: {
            release(id)
        }
    }

    /// Lets waiter `id` go now, whether it waits already or is about to; nothing once it
    /// has returned.
    private func release(_ id: UInt64) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            switch state.waiters[id] {
            case let .waiting(continuation)?:
                state.waiters[id] = nil
                return continuation
            case .registered?:
                state.waiters[id] = .released
                return nil
            case .released?, nil:
                return nil
            }
        }
        waiter?.resume()
    }
}
