import Foundation

/// One implementation's figures in one case: `samples` timings of `ops` operations each.
struct BenchResult: Sendable {
    var suite: String
    var `case`: String
    var impl: String
    /// The operations each sample did, in the order taken (a load generator's request count
    /// varies from sample to sample).
    var sampleOps: [Int]
    /// The seconds each sample took, in the order taken.
    var samples: [Double]
    /// Further fields for non-timing figures (a file size, an open time), printed as is.
    var extra: [String: String] = [:]

    /// Samples that each did `ops` operations.
    init(suite: String, case name: String, impl: String, ops: Int, samples: [Double], extra: [String: String] = [:]) {
        self.init(suite: suite, case: name, impl: impl, sampleOps: Array(repeating: ops, count: samples.count), samples: samples, extra: extra)
    }

    /// Samples each with its own operation count.
    init(suite: String, case name: String, impl: String, sampleOps: [Int], samples: [Double], extra: [String: String] = [:]) {
        self.suite = suite
        self.case = name
        self.impl = impl
        self.sampleOps = sampleOps
        self.samples = samples
        self.extra = extra
    }

    /// The median sample's operation count.
    var ops: Int {
        let sorted = sampleOps.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    /// Each sample's operations per second, in the order taken.
    var rates: [Double] { zip(sampleOps, samples).map { $1 > 0 ? Double($0) / $1 : .infinity } }

    /// One sample of `seconds`.
    init(suite: String, case name: String, impl: String, ops: Int, seconds: Double, extra: [String: String] = [:]) {
        self.init(suite: suite, case: name, impl: impl, ops: ops, samples: [seconds], extra: extra)
    }

    /// The median sample's duration.
    var seconds: Double {
        let sorted = samples.sorted()
        guard !sorted.isEmpty else { return 0 }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// The median of the samples' operations per second (each sample's own count over its
    /// own time).
    var opsPerSecond: Double {
        let sorted = rates.sorted()
        guard !sorted.isEmpty else { return 0 }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// The slowest and fastest sample's operations per second.
    var opsPerSecondRange: (low: Double, high: Double) { (rates.min() ?? 0, rates.max() ?? 0) }

    /// Half the distance between the fastest and slowest sample, relative to the median
    /// (`0.03` means the samples lie within ±3 % of it).
    var spread: Double {
        let range = opsPerSecondRange
        let median = opsPerSecond
        guard median.isFinite, median > 0, range.high.isFinite else { return 0 }
        return (range.high - range.low) / 2 / median
    }
}

/// Prints results as JSON lines (`--json`) or as a table grouped by suite and case, with
/// each implementation's median speed, its spread, and its ratio to the first one measured
/// (Stash).
final class BenchReporter: @unchecked Sendable {
    private let json: Bool
    private let lock = NSLock()
    private var results: [BenchResult] = []

    init(json: Bool) { self.json = json }

    func record(_ result: BenchResult) {
        lock.lock()
        results.append(result)
        lock.unlock()
        guard json else { return }
        let range = result.opsPerSecondRange
        var fields = [
            "\"suite\":\(quoted(result.suite))",
            "\"case\":\(quoted(result.case))",
            "\"impl\":\(quoted(result.impl))",
            "\"ops\":\(result.ops)",
            "\"seconds\":\(String(format: "%.6f", result.seconds))",
            "\"ops_per_s\":\(number(result.opsPerSecond))",
            "\"ops_per_s_min\":\(number(range.low))",
            "\"ops_per_s_max\":\(number(range.high))",
            "\"spread\":\(String(format: "%.4f", result.spread))",
            "\"samples\":[" + result.samples.map { String(format: "%.6f", $0) }.joined(separator: ",") + "]",
            "\"sample_ops\":[" + result.sampleOps.map(String.init).joined(separator: ",") + "]",
        ]
        for (key, value) in result.extra.sorted(by: { $0.key < $1.key }) {
            fields.append("\(quoted(key)):\(Double(value) != nil ? value : quoted(value))")
        }
        print("{" + fields.joined(separator: ",") + "}")
    }

    /// A note that is not a timing (a seed, a setup remark), printed in both modes: with
    /// `--json` as a line of its own, `{"note": "…"}`.
    func note(_ line: String) {
        lock.lock()
        defer { lock.unlock() }
        print(json ? "{\"note\":\(quoted(line))}" : line)
    }

    func finish() {
        guard !json else { return }
        lock.lock()
        let all = results
        lock.unlock()
        var groups: [(String, [BenchResult])] = []
        for result in all {
            let key = result.suite + " / " + result.case
            if let index = groups.firstIndex(where: { $0.0 == key }) {
                groups[index].1.append(result)
            } else {
                groups.append((key, [result]))
            }
        }
        print(pad("suite / case", 34) + pad("impl", 22) + pad("ops/sample", 12, left: true)
            + pad("samples", 8, left: true) + pad("median ops/s", 15, left: true)
            + pad("spread", 9, left: true) + pad("vs first", 10, left: true))
        for (key, results) in groups {
            let reference = results[0].opsPerSecond
            for result in results {
                let ratio = result.opsPerSecond / reference
                var line = pad(key, 34) + pad(result.impl, 22) + pad("\(result.ops)", 12, left: true)
                line += pad("\(result.samples.count)", 8, left: true)
                line += pad(String(format: "%.0f", result.opsPerSecond), 15, left: true)
                line += pad(String(format: "±%.1f%%", result.spread * 100), 9, left: true)
                line += pad(String(format: "%.2fx", ratio), 10, left: true)
                for (name, value) in result.extra.sorted(by: { $0.key < $1.key }) { line += "  \(name)=\(value)" }
                print(line)
            }
        }
    }

    private func number(_ value: Double) -> String {
        value.isFinite ? String(format: "%.1f", value) : "null"
    }

    /// `string` as a JSON string.
    private func quoted(_ string: String) -> String {
        var quoted = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "\n": quoted += "\\n"
            case _ where scalar.value < 0x20: quoted += String(format: "\\u%04x", scalar.value)
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        return quoted + "\""
    }

    private func pad(_ string: String, _ width: Int, left: Bool = false) -> String {
        guard string.count < width else { return string + " " }
        let padding = String(repeating: " ", count: width - string.count)
        return left ? padding + string : string + padding
    }
}
