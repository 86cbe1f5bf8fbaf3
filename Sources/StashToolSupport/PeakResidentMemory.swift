import Foundation

/// The most resident memory a process has had: `VmHWM` in `/proc/PID/status` (Linux). The
/// one reader of it for the benchmark's memory notes and the proxy's memory tests.
///
/// ```swift
/// let peak = PeakResidentMemory.bytes(of: "self")
/// ```
package enum PeakResidentMemory {
    /// The peak of process `pid` (`"self"`, or a process identifier), in bytes; `nil`
    /// where `/proc` does not say (not Linux, the process gone).
    package static func bytes(of pid: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return nil }
        return kilobytes * 1024
    }
}
