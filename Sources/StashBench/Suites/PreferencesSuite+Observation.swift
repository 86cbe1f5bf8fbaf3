import Foundation
import StashCore
import StashPreferences

/// `observe-other-instance`: how long after a set returns an observer of another store on the
/// same file (as another process would be: the two share nothing but the file) has the new
/// value. One store sets `tick` = round, then waits until the other's `changes(forKey:)`
/// stream has yielded it before the next round (`wakeUpLatencies`). The observer learns of the
/// change from the change counter in the log's header, which its store reads every
/// `Preferences.watchInterval` while anyone observes, so the delay is that poll's: about
/// half the interval on average, at most the interval plus the delivery. Reported as the
/// `latency_p50_ms` and `latency_p99_ms` fields of the case (and a note line). There is no
/// peer: neither UserDefaults on Linux nor MMKV tells one process of another's writes.
extension PreferencesSuite {
    static func crossInstanceObservation(_ context: BenchContext, scratch: URL) async throws {
        let name = "observe-other-instance"
        guard context.runs(name), context.runsImpl("stash") else { return }
        let file = scratch.appendingPathComponent("observed.stashprefs")
        let writer = try Preferences(url: file)
        let observer = try Preferences(url: file)
        let rounds = max(context.scaled(100), 20)
        let seen = AsyncStream<(round: Int, at: UInt64)>.makeStream()
        let watch = Task {
            for await change in observer.changes(forKey: "tick") {
                guard case .integer(let round)? = change.value else { continue }
                seen.continuation.yield((Int(round), DispatchTime.now().uptimeNanoseconds))
            }
            seen.continuation.finish()
        }
        let (latencies, seconds) = try await wakeUpLatencies(rounds: rounds, interval: Preferences.watchInterval, arrivals: seen.stream) { round in
            try writer.set(round, forKey: "tick")
        }
        watch.cancel()
        observer.close()
        writer.close()
        let p50 = milliseconds(latencies, quantile: 0.50), p99 = milliseconds(latencies, quantile: 0.99)
        context.reporter.record(BenchResult(
            suite: suite, case: name, impl: "stash", ops: rounds, samples: [seconds],
            extra: ["latency_p50_ms": p50, "latency_p99_ms": p99, "watch_interval_ms": String(format: "%.0f", Preferences.watchInterval * 1000)]
        ))
        context.reporter.note("preferences \(name): set to delivery in another store p50 \(p50) ms, p99 \(p99) ms over \(latencies.count) rounds (watch interval \(Preferences.watchInterval * 1000) ms)")
    }

}
