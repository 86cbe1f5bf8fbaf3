import Foundation

/// The measuring rule of every suite: each implementation of a case is timed in
/// ``BenchContext/sampleCount`` samples of at least ``BenchContext/minimumSampleSeconds``
/// each (the workload is repeated until a sample lasts that long), the implementations
/// take turns sample by sample (interleaved, the order rotating each round, so that a slow
/// moment of the machine does not fall on one of them), and the median and the spread of
/// the samples are reported.
extension BenchContext {
    /// Times every contender of one case and reports the median and spread of each.
    func compare(suite: String, case name: String, _ contenders: [Contender], extra: [String: String] = [:]) throws {
        let contenders = contenders.filter { runsImpl($0.name) }
        guard runs(name), !contenders.isEmpty else { return }
        var repetitions: [Int] = []
        for contender in contenders {
            try contender.prepare()
            let (ops, seconds) = try Self.timed(contender.run)
            repetitions.append(self.repetitions(forOneRunOf: seconds, ops: ops))
        }
        var samples = Array(repeating: [Double](), count: contenders.count)
        var opsPerSample = Array(repeating: 0, count: contenders.count)
        for round in 0..<sampleCount {
            for turn in 0..<contenders.count {
                let index = (turn + round) % contenders.count
                var seconds = 0.0
                var ops = 0
                for _ in 0..<repetitions[index] {
                    try contenders[index].prepare()
                    let (done, elapsed) = try Self.timed(contenders[index].run)
                    ops += done
                    seconds += elapsed
                }
                samples[index].append(seconds)
                opsPerSample[index] = ops
            }
        }
        for index in contenders.indices {
            reporter.record(BenchResult(
                suite: suite, case: name, impl: contenders[index].name,
                ops: opsPerSample[index], samples: samples[index], extra: extra
            ))
        }
    }

    /// Times every contender of one case whose workload awaits; see ``compare(suite:case:_:extra:)``.
    func compareAsync(suite: String, case name: String, _ contenders: [AsyncContender], extra: [String: String] = [:]) async throws {
        let contenders = contenders.filter { runsImpl($0.name) }
        guard runs(name), !contenders.isEmpty else { return }
        var repetitions: [Int] = []
        for contender in contenders {
            try await contender.prepare()
            let start = DispatchTime.now().uptimeNanoseconds
            let ops = try await contender.run()
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            repetitions.append(self.repetitions(forOneRunOf: seconds, ops: ops))
        }
        var samples = Array(repeating: [Double](), count: contenders.count)
        var opsPerSample = Array(repeating: 0, count: contenders.count)
        for round in 0..<sampleCount {
            for turn in 0..<contenders.count {
                let index = (turn + round) % contenders.count
                var seconds = 0.0
                var ops = 0
                for _ in 0..<repetitions[index] {
                    try await contenders[index].prepare()
                    let start = DispatchTime.now().uptimeNanoseconds
                    ops += try await contenders[index].run()
                    seconds += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                }
                samples[index].append(seconds)
                opsPerSample[index] = ops
            }
        }
        for index in contenders.indices {
            reporter.record(BenchResult(
                suite: suite, case: name, impl: contenders[index].name,
                ops: opsPerSample[index], samples: samples[index], extra: extra
            ))
        }
    }

    /// How many repetitions make a sample of at least `minimumSampleSeconds`, given one
    /// (warm-up) repetition took `seconds`.
    private func repetitions(forOneRunOf seconds: Double, ops: Int) -> Int {
        guard seconds > 0 else { return 1_000 }
        return max(1, Int((minimumSampleSeconds / seconds).rounded(.up)))
    }

    private static func timed(_ body: () throws -> Int) throws -> (ops: Int, seconds: Double) {
        let start = DispatchTime.now().uptimeNanoseconds
        let ops = try body()
        return (ops, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
}
