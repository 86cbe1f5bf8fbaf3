import Foundation

/// The wake-up delay of an observer in another store (or process) on the same file, as the
/// `observe-other-instance` cases measure it: for each round, a pause of a fraction of the
/// observer's poll `interval` (the fractions spread evenly over the rounds in a seeded order,
/// since a write made just after each delivery would always land just after a poll), then
/// `write(round)`, then a wait until `arrivals` has yielded that round. Returns each round's
/// seconds from `write` returning to the arrival, sorted, and the seconds of the whole run.
///
/// ```swift
/// let (latencies, seconds) = try await wakeUpLatencies(rounds: 100, interval: 0.05, arrivals: seen.stream) { round in
///     try writer.set(round, forKey: "tick")
/// }
/// ```
func wakeUpLatencies(
    rounds: Int, interval: TimeInterval, arrivals: AsyncStream<(round: Int, at: UInt64)>, write: (Int) throws -> Void
) async throws -> (latencies: [Double], seconds: Double) {
    var latencies: [Double] = []
    var iterator = arrivals.makeAsyncIterator()
    let start = DispatchTime.now().uptimeNanoseconds
    let phases = seededPermutation(rounds, seed: 29)
    for round in 1...rounds {
        try await Task.sleep(nanoseconds: UInt64(interval * 1e9 * Double(phases[round - 1]) / Double(rounds)))
        try write(round)
        let written = DispatchTime.now().uptimeNanoseconds
        while let arrival = await iterator.next() {
            guard arrival.round == round else { continue }
            latencies.append(Double(arrival.at - min(arrival.at, written)) / 1e9)
            break
        }
    }
    return (latencies.sorted(), Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
}
