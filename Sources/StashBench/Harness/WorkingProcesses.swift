import Foundation

/// Whose CPU time a contender's operations cost, counted across all of their threads: the
/// bench's own process (a store it calls, its background flushes included), other processes
/// (a server and its workers, a peer's driver), or both (a client library in the bench and
/// the database server it talks to). The harness reads it around every timed repetition and
/// every drain, and reports the sum over the samples kept divided by their operations
/// (`cpu_us_per_op`).
///
/// A load generator that runs in the bench (the proxy cases' clients) is not the contender's
/// work: those cases count the servers' processes alone.
struct WorkingProcesses {
    /// The bench's own process counts (every thread: `CLOCK_PROCESS_CPUTIME_ID`).
    var includesThisProcess: Bool
    /// Other processes that count, read when the time is read (a server's workers may come
    /// and go); each one's user and system time from `/proc/PID/stat`.
    var others: () -> [Int32]

    /// The bench's process alone: a store it calls.
    static var thisProcess: WorkingProcesses { WorkingProcesses(includesThisProcess: true, others: { [] }) }

    /// Other processes alone: a server loaded by a client in the bench, a driver.
    static func processes(_ others: @escaping () -> [Int32]) -> WorkingProcesses {
        WorkingProcesses(includesThisProcess: false, others: others)
    }

    /// The bench's process and other processes: a client library and its server.
    static func thisProcess(and others: @escaping () -> [Int32]) -> WorkingProcesses {
        WorkingProcesses(includesThisProcess: true, others: others)
    }

    /// The CPU time used so far, to be passed to ``seconds(since:)``.
    func reading() -> Reading {
        Reading(own: includesThisProcess ? Self.ownSeconds() : 0, others: Self.seconds(of: others()))
    }

    /// The CPU seconds used since `start`. A process that started meanwhile counts whole; one
    /// that ended meanwhile loses what it used since `start` (its time can no longer be read).
    func seconds(since start: Reading) -> Double {
        let now = reading()
        let others = now.others.reduce(0.0) { total, entry in total + max(0, entry.value - (start.others[entry.key] ?? 0)) }
        return max(0, now.own - start.own) + others
    }

    /// CPU time at one moment: the bench's, and each other process's by identifier.
    struct Reading {
        var own: Double
        var others: [Int32: Double]
    }

    private static func ownSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// The clock ticks a second of `/proc/PID/stat`'s times.
    private static let ticksPerSecond = Double(max(1, sysconf(Int32(_SC_CLK_TCK))))

    /// Each process's user and system seconds (fields 14 and 15 of `/proc/PID/stat`, which
    /// include its ended threads); a process that cannot be read is left out.
    private static func seconds(of processes: [Int32]) -> [Int32: Double] {
        var seconds: [Int32: Double] = [:]
        for pid in processes {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let end = stat.lastIndex(of: ")")
            else { continue }
            // After the command's closing parenthesis: field 3 (state) onward.
            let fields = stat[stat.index(after: end)...].split(separator: " ")
            guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { continue }
            seconds[pid] = (user + system) / ticksPerSecond
        }
        return seconds
    }

    /// Every process of this user whose command is `name` (PostgreSQL's server and backends
    /// are all `postgres`).
    static func named(_ name: String) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        let user = getuid()
        return entries.compactMap { entry in
            guard let pid = Int32(entry),
                let command = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8),
                command.trimmingCharacters(in: .whitespacesAndNewlines) == name,
                let owner = try? FileManager.default.attributesOfItem(atPath: "/proc/\(pid)")[.ownerAccountID] as? NSNumber,
                owner.uint32Value == user
            else { return nil }
            return pid
        }
    }
}
