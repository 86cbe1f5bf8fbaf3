import Foundation
import StashCore
import StashToolSupport

/// The most resident memory a process has had (``PeakResidentMemory``), for the memory
/// notes of the large-body cases. The peak only grows, so a case resets it first
/// (``resetPeak(of:)``) to note its own.
enum PeakMemory {
    /// Lowers the peak of process `pid` (`"self"` for the bench) to its present resident
    /// memory (writes `5` to `/proc/PID/clear_refs`, Linux 4.0 and later); `false` where that
    /// is not possible.
    @discardableResult
    static func resetPeak(of pid: String) -> Bool {
        (try? "5".write(toFile: "/proc/\(pid)/clear_refs", atomically: false, encoding: .utf8)) != nil
    }

    /// The direct children of process `pid` (nginx's workers under its master).
    static func children(of pid: Int32) -> [Int32] {
        let list = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
        return list.split(separator: " ").compactMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// `bytes` in megabytes with one decimal, or "n/a".
    static func megabytes(_ bytes: Int?) -> String {
        bytes.map { String(format: "%.1f MB", Double($0) / 1e6) } ?? "n/a"
    }
}
