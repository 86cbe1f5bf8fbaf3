import Foundation

/// The latency figures of a load generator's runs (those of the samples kept), for one
/// implementation in one case: the median over the runs of each run's median and 99th
/// percentile, the lowest and highest of those 99th percentiles (a run's p99 moves more from
/// run to run than its throughput), and the errors summed.
struct LatencyFigures {
    private let p50: [Double]
    private let p99: [Double]
    private let p999: [Double]
    private let errors: Int

    init(_ runs: [LoadGenerator.Run]) {
        p50 = runs.compactMap(\.p50Milliseconds)
        p99 = runs.compactMap(\.p99Milliseconds)
        p999 = runs.compactMap(\.p999Milliseconds)
        errors = runs.reduce(0) { $0 + $1.errors }
    }

    /// `p50_ms`, `p99_ms`, `p99_ms_range`, `p999_ms` (when the client reports them) and `errors`.
    var figures: [String: String] {
        var figures = ["errors": "\(errors)"]
        func median(_ values: [Double]) -> String? {
            values.isEmpty ? nil : String(format: "%.2f", values.sorted()[values.count / 2])
        }
        figures["p50_ms"] = median(p50)
        figures["p99_ms"] = median(p99)
        figures["p999_ms"] = median(p999)
        if let lowest = p99.min(), let highest = p99.max() {
            figures["p99_ms_range"] = String(format: "%.2f-%.2f", lowest, highest)
        }
        return figures
    }
}
