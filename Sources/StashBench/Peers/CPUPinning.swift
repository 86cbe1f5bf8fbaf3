import Foundation

/// How the servers under test and the load generator share the machine's CPUs, the same for
/// every server: with `taskset` and at least two CPUs, each server runs on every CPU but the
/// last and the load generator on the last, so a server never competes with its client for a
/// core and every server gets the same cores. Without them, nothing is pinned (and the
/// report says so).
struct CPUPinning {
    /// The CPUs of the servers, as `taskset -c` reads them (`0` or `0-2`).
    var servers: String
    /// The CPU of the load generator.
    var load: String
    /// How many CPUs the servers have.
    var serverCPUs: Int

    /// The pinning of this machine, or `nil` when it cannot pin.
    static let current: CPUPinning? = {
        let cpus = ProcessInfo.processInfo.activeProcessorCount
        guard cpus >= 2, taskset != nil else { return nil }
        return CPUPinning(servers: cpus == 2 ? "0" : "0-\(cpus - 2)", load: "\(cpus - 1)", serverCPUs: cpus - 1)
    }()

    static let taskset: URL? = findExecutable("taskset", extraFolders: ["/usr/bin", "/bin"])

    /// A sentence for the report.
    static var description: String {
        guard let current else { return "servers and load generator unpinned (taskset or a second CPU is missing)" }
        return "servers pinned to CPU \(current.servers), the load generator to CPU \(current.load) (taskset)"
    }

    /// `executable` with `arguments`, run through `taskset` on `cpus` when the machine pins.
    static func command(_ executable: URL, _ arguments: [String], on cpus: KeyPath<CPUPinning, String>) -> (URL, [String]) {
        guard let current, let taskset else { return (executable, arguments) }
        return (taskset, ["-c", current[keyPath: cpus], executable.path] + arguments)
    }
}
