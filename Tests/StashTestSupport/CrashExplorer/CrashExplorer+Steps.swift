public import Foundation
import StashCore

extension CrashExplorer where Expectation == Int {
    /// Explores a store that is a sequence of whole states, such as those the fault sweeps
    /// drive: `steps` run in order (each one's `change` says what it does to the model) and
    /// each that returned is acknowledged. A crash state must open, show the model after the
    /// last acknowledged step or after the one under way, and take `then`. The steps run
    /// once per 60 states of the budget, so that a larger budget has more to explore.
    ///
    /// ```swift
    /// let report = CrashExplorer<Int>("cookie jar").run(
    ///     initial: [:], open: { try CookieJar(directory: $0) }, close: { $0.close() },
    ///     read: { jar in … }, steps: steps, then: last
    /// )
    /// ```
    public func run<Store, Model: Equatable>(
        initial: Model, open: (URL) throws -> Store, close: (Store) -> Void, read: (Store) throws -> Model,
        steps: [FaultSweep<Store, Model>.Step], then: FaultSweep<Store, Model>.Step
    ) -> Report {
        let steps = Array(repeating: steps, count: max(1, budget / 60)).flatMap { $0 }
        var models = [initial]
        for step in steps {
            var next = models.last!
            step.change(&next)
            models.append(next)
        }
        let acknowledged = LockedValue(0)
        return run(
            workload: { folder in
                let store = try open(folder)
                defer { close(store) }
                for step in steps {
                    try step.apply(store)
                    acknowledged.withLock { $0 += 1 }
                }
            },
            expectation: { acknowledged.withLock { $0 } },
            check: { folder, acknowledged in
                let store: Store
                do { store = try open(folder) } catch { return ["does not open: \(error)"] }
                defer { close(store) }
                var problems: [String] = []
                let shown = try read(store)
                let possible = acknowledged...min(acknowledged + 1, models.count - 1)
                if !possible.contains(where: { models[$0] == shown }) {
                    let step = models.lastIndex(of: shown).map { "the state after step \($0)" } ?? "a state no step made"
                    problems.append("shows \(step), step \(acknowledged) had returned")
                }
                do { try then.apply(store) } catch { problems.append("the next write fails: \(error)") }
                return problems
            }
        )
    }
}
