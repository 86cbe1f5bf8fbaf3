import Foundation

/// The measuring rule of every suite: each implementation of a case is timed in
/// ``BenchContext/sampleCount`` samples of at least ``BenchContext/minimumSampleSeconds``
/// each (the workload is repeated until a sample lasts that long: a sample that comes out
/// shorter is dropped and taken again with more repetitions), the implementations take turns
/// sample by sample (interleaved, the order rotating each round, so that a slow moment of
/// the machine does not fall on one of them), and the median and the spread of the samples'
/// rates are reported, each sample counting its own operations. After each sample, the
/// contender's `drain` finishes, untimed, the work it left in the background (a disk flush). A workload that times itself
/// (a load generator: its own run's length, without its start-up) is taken at its word, and
/// its latency is reported from the runs of the samples kept (not the warm-up's). The CPU
/// time each contender's runs and drains used (``WorkingProcesses``) is reported per
/// operation.
extension BenchContext {
    /// Times every contender of one case and reports the median and spread of each. `extra`
    /// holds facts of the case (a body size), `extraOf` facts of one implementation (the file
    /// size Stash left), keyed by its name.
    func compare(
        suite: String, case name: String, _ contenders: [Contender], extra: [String: String] = [:],
        extraOf: [String: [String: String]] = [:]
    ) async throws {
        let contenders = contenders.filter { runsImpl($0.name) }
        guard runs(name), !contenders.isEmpty else { return }
        var repetitions: [Int] = []
        for contender in contenders {
            try contender.prepare()
            let (ops, seconds) = try Self.timed(contender.run)
            repetitions.append(self.repetitions(forOneRunOf: seconds, ops: ops))
        }
        var samples = Array(repeating: [Double](), count: contenders.count)
        var sampleOps = Array(repeating: [Int](), count: contenders.count)
        var cpuSeconds = Array(repeating: 0.0, count: contenders.count)
        for round in 0..<sampleCount {
            for turn in 0..<contenders.count {
                let index = (turn + round) % contenders.count
                while true {
                    var seconds = 0.0
                    var ops = 0
                    var cpu = 0.0
                    for _ in 0..<repetitions[index] {
                        try contenders[index].prepare()
                        let start = contenders[index].cpu?.reading()
                        let (done, elapsed) = try Self.timed(contenders[index].run)
                        if let start { cpu += contenders[index].cpu!.seconds(since: start) }
                        ops += done
                        seconds += elapsed
                    }
                    // What the sample left for later (a flush) is done now, untimed, so that it
                    // never falls into the next contender's sample; its CPU time counts.
                    let start = contenders[index].cpu?.reading()
                    try await contenders[index].drain()
                    if let start { cpu += contenders[index].cpu!.seconds(since: start) }
                    if let more = resized(repetitions[index], lasting: seconds) {
                        repetitions[index] = more
                        continue
                    }
                    samples[index].append(seconds)
                    sampleOps[index].append(ops)
                    cpuSeconds[index] += cpu
                    break
                }
            }
        }
        for index in contenders.indices {
            reporter.record(BenchResult(
                suite: suite, case: name, impl: contenders[index].name,
                sampleOps: sampleOps[index], samples: samples[index],
                extra: extra.merging(extraOf[contenders[index].name] ?? [:]) { $1 }
                    .merging(Self.cpuFigure(cpuSeconds[index], ops: sampleOps[index], counted: contenders[index].cpu != nil)) { $1 }
            ))
        }
    }

    /// Times every contender of one case whose workload awaits; see ``compare(suite:case:_:extra:extraOf:)``.
    func compareAsync(
        suite: String, case name: String, _ contenders: [AsyncContender], extra: [String: String] = [:],
        extraOf: [String: [String: String]] = [:]
    ) async throws {
        let contenders = contenders.filter { runsImpl($0.name) }
        guard runs(name), !contenders.isEmpty else { return }
        var repetitions: [Int] = []
        for contender in contenders {
            try await contender.prepare()
            let (measurement, seconds) = try await Self.timed(contender.run)
            repetitions.append(self.repetitions(forOneRunOf: seconds, ops: measurement.ops))
        }
        var samples = Array(repeating: [Double](), count: contenders.count)
        var sampleOps = Array(repeating: [Int](), count: contenders.count)
        // The load generator's runs of the samples kept: not the warm-up's, nor a sample's
        // taken again.
        var loads = Array(repeating: [LoadGenerator.Run](), count: contenders.count)
        var cpuSeconds = Array(repeating: 0.0, count: contenders.count)
        for round in 0..<sampleCount {
            for turn in 0..<contenders.count {
                let index = (turn + round) % contenders.count
                while true {
                    var seconds = 0.0
                    var ops = 0
                    var cpu = 0.0
                    var runs: [LoadGenerator.Run] = []
                    for _ in 0..<repetitions[index] {
                        try await contenders[index].prepare()
                        let start = contenders[index].cpu?.reading()
                        let (measurement, elapsed) = try await Self.timed(contenders[index].run)
                        if let start { cpu += contenders[index].cpu!.seconds(since: start) }
                        ops += measurement.ops
                        seconds += elapsed
                        if let load = measurement.load { runs.append(load) }
                    }
                    let start = contenders[index].cpu?.reading()
                    try await contenders[index].drain()
                    if let start { cpu += contenders[index].cpu!.seconds(since: start) }
                    if let more = resized(repetitions[index], lasting: seconds) {
                        repetitions[index] = more
                        continue
                    }
                    samples[index].append(seconds)
                    sampleOps[index].append(ops)
                    loads[index] += runs
                    cpuSeconds[index] += cpu
                    break
                }
            }
        }
        for index in contenders.indices {
            let latency = loads[index].isEmpty ? [:] : LatencyFigures(loads[index]).figures
            reporter.record(BenchResult(
                suite: suite, case: name, impl: contenders[index].name,
                sampleOps: sampleOps[index], samples: samples[index],
                extra: extra.merging(extraOf[contenders[index].name] ?? [:]) { $1 }.merging(latency) { $1 }
                    .merging(Self.cpuFigure(cpuSeconds[index], ops: sampleOps[index], counted: contenders[index].cpu != nil)) { $1 }
            ))
        }
    }

    /// How many repetitions make a sample of at least `minimumSampleSeconds`, given one
    /// (warm-up) repetition took `seconds`.
    private func repetitions(forOneRunOf seconds: Double, ops: Int) -> Int {
        guard seconds > 0 else { return 1_000 }
        return max(1, Int((minimumSampleSeconds / seconds).rounded(.up)))
    }

    /// More repetitions when a sample of `repetitions` lasted `seconds`, under the minimum
    /// (the warm-up was slower than the workload runs now); `nil` when the sample stands.
    private func resized(_ repetitions: Int, lasting seconds: Double) -> Int? {
        guard seconds < minimumSampleSeconds else { return nil }
        guard seconds > 0 else { return repetitions * 10 }
        // A tenth more than the rate says, so that the next sample is not short by a hair.
        return max(repetitions + 1, Int((Double(repetitions) * minimumSampleSeconds / seconds * 1.1).rounded(.up)))
    }

    /// `cpu_us_per_op`: the CPU microseconds the kept samples used per operation, across
    /// every thread of the processes that count (``WorkingProcesses``); nothing when none is
    /// known to count.
    private static func cpuFigure(_ seconds: Double, ops: [Int], counted: Bool) -> [String: String] {
        let total = ops.reduce(0, +)
        guard counted, total > 0 else { return [:] }
        let microseconds = seconds * 1e6 / Double(total)
        // Three significant digits.
        let decimals = max(0, 2 - Int(log10(max(microseconds, 1e-6)).rounded(.down)))
        return ["cpu_us_per_op": String(format: "%.\(decimals)f", microseconds)]
    }

    private static func timed(_ body: () throws -> Int) throws -> (ops: Int, seconds: Double) {
        let start = DispatchTime.now().uptimeNanoseconds
        let ops = try body()
        return (ops, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }

    /// The measurement of `body` and its length: its own, when it reports one, else the
    /// harness clock's.
    private static func timed(_ body: () async throws -> Measurement) async throws -> (Measurement, Double) {
        let start = DispatchTime.now().uptimeNanoseconds
        let measurement = try await body()
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return (measurement, measurement.seconds ?? elapsed)
    }
}
