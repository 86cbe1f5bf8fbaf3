import Foundation
import StashCore
import StashObjects

/// Observation latency (`observe-1`, `observe-100`): how long after a commit returns its
/// observers have the new results. `N` tasks each iterate `store.observe(BenchTick.self,
/// id:)`; a writer thread commits a one-row update, then waits until all `N` observers have
/// yielded the value it wrote before committing the next one. Each delivery's latency runs
/// from the end of the write's closure (so the commit itself is included) to the observer's
/// `next()` returning the new value. (`write` returning is no mark of the commit: GRDB starts
/// the observers' reads from its commit hook, and most deliveries came before `write` had
/// returned to its caller.) Reported as the
/// `latency_p50_ms` and `latency_p99_ms` fields of the case (and a note line), beside the
/// commits per second of the whole round trip. There is no peer: GRDB's `ValueObservation`
/// is what runs underneath.
extension ObjectsSuite {
    static func observation(_ context: BenchContext) async throws {
        for observers in [1, 100] where context.runs("observe-\(observers)") && context.runsImpl("stash") {
            let scratch = try context.makeScratch(suite)
            defer { context.removeScratch(scratch) }
            let store = try ObjectStore(url: scratch.appendingPathComponent("observe.sqlite"), schema: ObjectSchema(BenchTick.self))
            try await store.write { tx in _ = try tx.insert(BenchTick(id: 1, value: 0)) }
            let commits = context.scaled(observers == 1 ? 1_000 : 100)
            let deliveries = Deliveries(observers: observers)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<observers {
                    group.addTask {
                        // An observer that fails or stops early wakes the writer with its
                        // error instead of leaving it waiting for a delivery that never comes.
                        do {
                            for try await tick in store.observe(BenchTick.self, id: 1) {
                                guard let tick else { continue }
                                deliveries.delivered(round: tick.value, at: DispatchTime.now().uptimeNanoseconds)
                                if tick.value == commits { return }
                            }
                            deliveries.fail(StashError(.io, "objects bench: an observation ended before the last commit"))
                        } catch {
                            deliveries.fail(error)
                            throw error
                        }
                    }
                }
                let seconds = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Double, any Error>) in
                    Thread.detachNewThread {
                        do {
                            try deliveries.waitForAll(round: 0)
                            let start = DispatchTime.now().uptimeNanoseconds
                            for round in 1...commits {
                                try store.write { tx in
                                    try tx.update(BenchTick(id: 1, value: round))
                                    deliveries.committing(round: round, at: DispatchTime.now().uptimeNanoseconds)
                                }
                                try deliveries.waitForAll(round: round)
                            }
                            continuation.resume(returning: Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
                        } catch {
                            continuation.resume(throwing: error)
                        }
                    }
                }
                try await group.waitForAll()
                let latencies = deliveries.latencies(rounds: 1...commits)
                let p50 = milliseconds(latencies, quantile: 0.50), p99 = milliseconds(latencies, quantile: 0.99)
                context.reporter.record(BenchResult(
                    suite: suite, case: "observe-\(observers)", impl: "stash", ops: commits, samples: [seconds],
                    extra: ["observers": "\(observers)", "latency_p50_ms": p50, "latency_p99_ms": p99]
                ))
                context.reporter.note("objects observe-\(observers): commit to delivery p50 \(p50) ms, p99 \(p99) ms over \(latencies.count) deliveries (\(commits) commits, \(observers) observers)")
            }
            try store.close()
        }
    }

}

/// The one-row model the observation cases update.
struct BenchTick: Model, Equatable {
    var id: Int64?
    var value: Int
}

/// When each round was committed and when each observer saw it; the writer thread blocks
/// until every observer has seen the round it waits for, or one of them has failed.
private final class Deliveries: Sendable {
    private struct State {
        var committed: [Int: UInt64] = [:]
        var seen: [Int: [UInt64]] = [:]
        var awaited: Int?
        var failure: (any Error)?
    }

    private let observers: Int
    private let state = LockedValue(State())
    private let allSeen = DispatchSemaphore(value: 0)

    init(observers: Int) { self.observers = observers }

    func committing(round: Int, at time: UInt64) {
        state.withLock { $0.committed[round] = time }
    }

    func delivered(round: Int, at time: UInt64) {
        let complete = state.withLock { state in
            state.seen[round, default: []].append(time)
            guard state.awaited == round, state.seen[round]!.count == observers else { return false }
            state.awaited = nil
            return true
        }
        if complete { allSeen.signal() }
    }

    /// Blocks the calling thread until every observer has seen `round`; throws the first
    /// observer's failure instead.
    func waitForAll(round: Int) throws {
        let complete = try state.withLock { state in
            if let failure = state.failure { throw failure }
            if state.seen[round, default: []].count >= observers { return true }
            state.awaited = round
            return false
        }
        if !complete { allSeen.wait() }
        if let failure = state.withLock({ $0.failure }) { throw failure }
    }

    /// An observer failed (or its sequence ended early): the writer stops waiting.
    func fail(_ error: any Error) {
        let waiting = state.withLock { state in
            guard state.failure == nil else { return false }
            state.failure = error
            defer { state.awaited = nil }
            return state.awaited != nil
        }
        if waiting { allSeen.signal() }
    }

    /// Seconds from each round's commit to each of its deliveries, sorted.
    func latencies(rounds: ClosedRange<Int>) -> [Double] {
        state.withLock { state in
            rounds.flatMap { round -> [Double] in
                guard let committed = state.committed[round] else { return [] }
                return (state.seen[round] ?? []).map { Double($0 - min($0, committed)) / 1e9 }
            }.sorted()
        }
    }
}
