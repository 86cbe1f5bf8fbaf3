import Foundation
import StashCore
import StashObjects

/// `observe-other-instance`: how long after a commit returns an observer of another store on
/// the same file (as another process would be: the two share nothing but the file) has the
/// new value. One store updates the tick row to the round's number, then waits until the
/// other's `observe(BenchTick.self, id:)` has yielded it before the next round
/// (`wakeUpLatencies`). The observer learns of the commit from SQLite's `data_version`, which
/// its store reads every `ObjectStore.watchInterval` while anything observes, then fetches
/// again: the delay is that poll's (about half the interval on average, at most the interval)
/// plus the fetch and the delivery. Reported as the `latency_p50_ms` and `latency_p99_ms`
/// fields of the case (and a note line). There is no peer: GRDB's observation never sees
/// another connection's commits.
extension ObjectsSuite {
    static func crossInstanceObservation(_ context: BenchContext) async throws {
        let name = "observe-other-instance"
        guard context.runs(name), context.runsImpl("stash") else { return }
        let scratch = try context.makeScratch(suite)
        defer { context.removeScratch(scratch) }
        let file = scratch.appendingPathComponent("observe-other.sqlite")
        let writer = try ObjectStore(url: file, schema: ObjectSchema(BenchTick.self))
        let observer = try ObjectStore(url: file, schema: ObjectSchema(BenchTick.self))
        try await writer.write { tx in _ = try tx.insert(BenchTick(id: 1, value: 0)) }
        let rounds = max(context.scaled(200), 20)
        let seen = AsyncStream<(round: Int, at: UInt64)>.makeStream()
        let watch = Task {
            do {
                for try await tick in observer.observe(BenchTick.self, id: 1) {
                    guard let tick else { continue }
                    seen.continuation.yield((tick.value, DispatchTime.now().uptimeNanoseconds))
                }
            } catch {}
            seen.continuation.finish()
        }
        let (latencies, seconds) = try await wakeUpLatencies(rounds: rounds, interval: ObjectStore.watchInterval, arrivals: seen.stream) { round in
            try writer.write { tx in try tx.update(BenchTick(id: 1, value: round)) }
        }
        watch.cancel()
        try observer.close()
        try writer.close()
        guard latencies.count == rounds else {
            throw StashError(.io, "objects \(name): the observation ended after \(latencies.count) of \(rounds) rounds")
        }
        let p50 = milliseconds(latencies, quantile: 0.50), p99 = milliseconds(latencies, quantile: 0.99)
        let watchInterval = String(format: "%.0f", ObjectStore.watchInterval * 1000)
        context.reporter.record(BenchResult(
            suite: suite, case: name, impl: "stash", ops: rounds, samples: [seconds],
            extra: ["latency_p50_ms": p50, "latency_p99_ms": p99, "watch_interval_ms": watchInterval]
        ))
        context.reporter.note("objects \(name): commit to delivery in another store p50 \(p50) ms, p99 \(p99) ms over \(latencies.count) rounds (watch interval \(watchInterval) ms)")
    }
}
