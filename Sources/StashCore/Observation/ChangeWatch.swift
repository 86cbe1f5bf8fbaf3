package import Dispatch

/// Looks for other processes' commits while anything observes a store: every `interval`,
/// and at once when the store's ``ChangeSignal`` arrives (Darwin notifications on Apple
/// platforms). The poll stays beside the signal: it is the whole watch where there is no
/// signal (Linux), and the bound on a missed or unsent one.
///
/// ```swift
/// let watch = ChangeWatch(signal: ChangeSignal(file: url), interval: .milliseconds(50)) { [weak store] in
///     store?.lookForOtherCommits()
/// }
/// watch.start()   // the first observer came
/// watch.stop()    // the last one left
/// ```
///
/// Thread-safe. `look` runs on a utility queue, from the timer or the signal, possibly both at
/// once: it must be safe to run concurrently (the stores' looks take their own locks).
package final class ChangeWatch: Sendable {
    private struct Running {
        var timer: any DispatchSourceTimer
        var subscription: ChangeSignal.Subscription?
    }

    private let signal: ChangeSignal?
    private let interval: DispatchTimeInterval
    private let look: @Sendable () -> Void
    private let running = LockedValue<Running?>(nil)

    /// A stopped watch that runs `look` every `interval`, and on each post of `signal`.
    package init(signal: ChangeSignal?, interval: DispatchTimeInterval, look: @escaping @Sendable () -> Void) {
        self.signal = signal
        self.interval = interval
        self.look = look
    }

    deinit { stop() }

    /// Whether the watch runs.
    package var isRunning: Bool { running.withLock { $0 != nil } }

    /// Starts the timer and the signal's subscription. Idempotent.
    package func start() {
        running.withLock { running in
            guard running == nil else { return }
            let timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
            timer.schedule(deadline: .now() + interval, repeating: interval)
            timer.setEventHandler { [look] in look() }
            timer.resume()
            running = Running(timer: timer, subscription: signal?.observe(look))
        }
    }

    /// Stops the timer and cancels the subscription. Idempotent.
    package func stop() {
        let stopped = running.withLock { running in
            defer { running = nil }
            return running
        }
        stopped?.timer.cancel()
        stopped?.subscription?.cancel()
    }
}
