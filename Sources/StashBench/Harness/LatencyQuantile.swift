import Foundation

/// The `quantile` (0...1) of `sorted` latencies in seconds, in milliseconds with three
/// decimals (the nearest rank), or `-` when there are none: the one way the bench reports a
/// latency it measured itself.
func milliseconds(_ sorted: [Double], quantile: Double) -> String {
    guard !sorted.isEmpty else { return "-" }
    let index = min(sorted.count - 1, Int((Double(sorted.count - 1) * quantile).rounded()))
    return String(format: "%.3f", sorted[index] * 1000)
}
