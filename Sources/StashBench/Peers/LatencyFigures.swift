import Foundation

/// The latency figures of a load generator's runs, for one implementation in one case: the
/// median over the runs of each run's median and 99th percentile, the lowest and highest of
/// those 99th percentiles (a run's p99 moves more from run to run than its throughput), and
/// the errors summed.
final class LatencyFigures {
    private var p50: [Double] = []
    private var p99: [Double] = []
    private var errors = 0

    func add(_ run: LoadGenerator.Run) {
        if let value = run.p50Milliseconds { p50.append(value) }
        if let value = run.p99Milliseconds { p99.append(value) }
        errors += run.errors
    }

    /// `p50_ms`, `p99_ms`, `p99_ms_range` (when the client reports them) and `errors`.
    var figures: [String: String] {
        var figures = ["errors": "\(errors)"]
        func median(_ values: [Double]) -> String? {
            values.isEmpty ? nil : String(format: "%.2f", values.sorted()[values.count / 2])
        }
        figures["p50_ms"] = median(p50)
        figures["p99_ms"] = median(p99)
        if let lowest = p99.min(), let highest = p99.max() {
            figures["p99_ms_range"] = String(format: "%.2f-%.2f", lowest, highest)
        }
        return figures
    }
}
