import Foundation

/// The most resident memory a process has had (`VmHWM` in `/proc/PID/status`, Linux), for
/// the memory notes of the large-body cases; `nil` where `/proc` does not say.
enum PeakMemory {
    /// The peak of process `pid` (`"self"` for the bench), in bytes.
    static func bytes(of pid: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return nil }
        return kilobytes * 1024
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
