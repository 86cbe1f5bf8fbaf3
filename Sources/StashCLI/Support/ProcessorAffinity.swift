import Foundation
import NIOCore

/// The CPUs this process may run on, and the event loops its servers get from them.
///
/// NIO sizes its shared event loop group from the machine's CPUs and the cgroup's limits,
/// not from the process's affinity mask (`taskset`, systemd's `CPUAffinity=`): a proxy
/// pinned to one CPU would run two loops on it, which the kernel then time-slices, and a
/// request waiting behind the other loop's slice waits milliseconds.
enum ProcessorAffinity {
    /// How many CPUs the affinity mask allows (`Cpus_allowed` of `/proc/self/status`, a
    /// hexadecimal mask in comma-separated words), or `nil` where the system does not say.
    static var count: Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed:") }) else { return nil }
        var count = 0
        for character in line.dropFirst("Cpus_allowed:".count) where character != "," && !character.isWhitespace {
            guard let digit = character.hexDigitValue else { return nil }
            count += digit.nonzeroBitCount
        }
        return count > 0 ? count : nil
    }

    /// Gives NIO's shared event loop group one loop per CPU of the affinity mask when that is
    /// fewer than NIO would make, unless `NIO_SINGLETON_GROUP_LOOP_COUNT` chooses. Call before
    /// anything uses NIO.
    static func sizeEventLoops() {
        guard ProcessInfo.processInfo.environment["NIO_SINGLETON_GROUP_LOOP_COUNT"] == nil,
              let count, count < System.coreCount else { return }
        NIOSingletons.groupLoopCountSuggestion = count
    }
}
