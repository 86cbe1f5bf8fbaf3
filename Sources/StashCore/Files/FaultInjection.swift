#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Failures injected into the package's own file I/O, for tests: the way SQLite tests
/// itself, a test arms a ``Plan`` on a folder, runs a workload once to count its calls,
/// then once per call N with call N failing with a chosen `errno`.
///
/// ```swift
/// let counting = FaultInjection.arm(folder: folder.path)
/// try workload()
/// counting.disarm()
/// for n in 1...counting.calls {
///     let plan = FaultInjection.arm(folder: folder.path, failing: n, with: ENOSPC)
///     defer { plan.disarm() }
///     // run the workload again; call n fails with ENOSPC
/// }
/// ```
///
/// Every checked call of ``SystemCalls`` (open, write, pwrite, fsync, msync, allocate,
/// truncate, rename, unlink, link, and the fsync of a folder) asks ``fault(_:path:)``
/// first; only calls on paths inside an armed folder count, so tests that run in parallel,
/// each in its own temporary folder, do not disturb each other. Unarmed, the question is
/// one load of a flag: nothing a benchmark can see.
///
/// Thread-safe: plans live behind one lock, taken only while a plan is armed.
package enum FaultInjection {
    /// The kinds of calls a plan counts and fails.
    package enum Call: String, Sendable, CaseIterable {
        case open, write, pwrite, fsync, msync, allocate, truncate, rename, unlink, link
        /// The fsync of a folder after a rename or a new entry in it.
        case syncFolder
    }

    /// One armed plan: it counts the calls inside its folder and fails the chosen one.
    /// Read its figures after the workload; ``disarm()`` it when done (also on error).
    package final class Plan: @unchecked Sendable {  // every mutable field is read and written under `FaultInjection.lock`
        /// The folder whose calls count (a path without a trailing slash).
        package let folder: String
        let failing: Int?
        let kind: Call?
        let errno: Int32
        let persistent: Bool
        let observer: (@Sendable (Observed) -> Void)?
        private var counted = 0
        private var faults = 0
        private var seen: [(Call, String)] = []

        init(
            folder: String, failing: Int?, kind: Call?, errno: Int32, persistent: Bool,
            observer: (@Sendable (Observed) -> Void)? = nil
        ) {
            self.folder = folder.hasSuffix("/") ? String(folder.dropLast()) : folder
            self.failing = failing
            self.kind = kind
            self.errno = errno
            self.persistent = persistent
            self.observer = observer
        }

        /// How many calls of the plan's kind (of every kind when it has none) ran so far,
        /// the failed ones included.
        package var calls: Int { FaultInjection.lock.withLock { counted } }

        /// How many calls failed because of this plan.
        package var injected: Int { FaultInjection.lock.withLock { faults } }

        /// Every counted call so far, in order: its kind and path, for a test's message.
        package var log: [(call: Call, path: String)] { FaultInjection.lock.withLock { seen.map { ($0.0, $0.1) } } }

        /// Stops counting and failing. Idempotent.
        package func disarm() {
            FaultInjection.lock.withLock {
                FaultInjection.plans.removeAll { $0 === self }
                FaultInjection.isArmed = !FaultInjection.plans.isEmpty
            }
        }

        /// The errno call `call` on `path` must fail with, counting it; the lock is held.
        fileprivate func consider(_ call: Call, path: String) -> Int32? {
            guard contains(path) else { return nil }
            guard kind == nil || kind == call else { return nil }
            counted += 1
            seen.append((call, path))
            if counted == failing, errno == FaultInjection.killProcess { kill(getpid(), SIGKILL) }
            guard let failing, counted == failing || (persistent && counted > failing) else { return nil }
            faults += 1
            return errno
        }

        fileprivate func contains(_ path: String) -> Bool { path == folder || path.hasPrefix(folder + "/") }
    }

    /// The `errno` of a plan that kills the process (SIGKILL) at its chosen call instead of
    /// failing it: what ``armKillPoint(fromEnvironment:)`` arms.
    package static let killProcess: Int32 = -9

    /// The environment variable naming a deterministic kill point for a child process:
    /// `KIND:N:FOLDER` (`fsync:3:/tmp/x`) kills the process with SIGKILL at its Nth call of
    /// that kind (`any` for every kind) on a path inside `FOLDER`, so that a crash test can
    /// walk every call of a compaction or a migration instead of hoping a timer lands inside.
    package static let killPointVariable = "STASH_KILL_POINT"

    /// Arms the kill point that ``killPointVariable`` names in `environment`, if any;
    /// `nil` when it names none. A malformed value arms nothing and says why.
    @discardableResult
    package static func armKillPoint(fromEnvironment environment: [String: String]) throws -> Plan? {
        guard let value = environment[killPointVariable] else { return nil }
        let parts = value.split(separator: ":", maxSplits: 2).map(String.init)
        guard parts.count == 3, let n = Int(parts[1]), n > 0, parts[2].hasPrefix("/"),
              parts[0] == "any" || Call(rawValue: parts[0]) != nil
        else { throw StashError(.unsupportedValue, "\(killPointVariable) is KIND:N:FOLDER, not \(value)") }
        return arm(folder: parts[2], failing: n, of: Call(rawValue: parts[0]), with: killProcess)
    }

    /// A call about to run, as an observer sees it.
    package struct Observed: Sendable {
        package var call: Call
        /// The path the call names (for a call on a descriptor, the path its errors name,
        /// which may be the destination of a temporary file: ``descriptor`` says which file).
        package var path: String
        /// For `msync`, the bytes flushed from the start of the mapping (the package maps
        /// files from offset 0); 0 otherwise.
        package var count: Int
        /// The descriptor the call acts on, or -1.
        package var descriptor: Int32
    }

    /// Arms an observer on `folder`: before every checked call on a path inside it runs,
    /// `observer` is told of it. It runs on the caller's thread, with no lock of the seam
    /// held; it must not call the seam on a path inside `folder`. Used by the crash-state
    /// explorer.
    package static func observe(folder: String, _ observer: @escaping @Sendable (Observed) -> Void) -> Plan {
        let plan = Plan(folder: folder, failing: nil, kind: nil, errno: 0, persistent: false, observer: observer)
        lock.withLock {
            plans.append(plan)
            isArmed = true
        }
        return plan
    }

    /// Tells the observers of the plans holding `path` that `call` is about to run, and counts
    /// it in kill points, without failing it: for file calls the package does not make itself
    /// (SQLite's, through a test VFS).
    package static func notifyObservers(_ call: Call, path: String, count: Int = 0, descriptor: Int32 = -1) {
        guard isArmed else { return }
        notify(Observed(call: call, path: path, count: count, descriptor: descriptor))
        lock.withLock {
            for plan in plans where plan.errno == killProcess { _ = plan.consider(call, path: path) }
        }
    }

    /// Calls the observers of the plans holding the call's path.
    private static func notify(_ observed: Observed) {
        let observers = lock.withLock { plans.compactMap { $0.contains(observed.path) ? $0.observer : nil } }
        for observer in observers { observer(observed) }
    }

    /// Whether any plan is armed: the one load an unarmed call pays. Written only under
    /// ``lock``; a reader on another thread may see it late, which only means that a call
    /// made concurrently with arming is not counted (a workload runs after its plan is armed).
    @exclusivity(unchecked) nonisolated(unsafe) private static var isArmed = false
    nonisolated(unsafe) private static var plans: [Plan] = []
    private static let lock = Lock()

    /// Arms a plan on `folder`: it counts every call on a path inside it (of `kind` only,
    /// when given) and makes call number `failing` (from 1) fail with `errno`, or every call
    /// from that one on when `persistent` (a disk that stays full). Without `failing`, it
    /// only counts.
    ///
    /// ```swift
    /// let plan = FaultInjection.arm(folder: folder.path, failing: 3, of: .fsync, with: EIO)
    /// defer { plan.disarm() }
    /// ```
    package static func arm(
        folder: String, failing: Int? = nil, of kind: Call? = nil, with errno: Int32 = EIO, persistent: Bool = false
    ) -> Plan {
        let plan = Plan(folder: folder, failing: failing, kind: kind, errno: errno, persistent: persistent)
        lock.withLock {
            plans.append(plan)
            isArmed = true
        }
        return plan
    }

    /// The `errno` that `call` on `path` must fail with, or `nil` when it runs as usual
    /// (always, unless a plan is armed on a folder holding `path`).
    @inline(__always)
    package static func fault(_ call: Call, path: String?) -> Int32? {
        fault(call, path: path, count: 0, descriptor: -1)
    }

    /// ``fault(_:path:)`` with what an observer is told besides: for `msync`, the bytes
    /// flushed (`count`); for a call on a descriptor, the descriptor.
    @inline(__always)
    package static func fault(_ call: Call, path: String?, count: Int, descriptor: Int32) -> Int32? {
        guard isArmed, let path else { return nil }
        notify(Observed(call: call, path: path, count: count, descriptor: descriptor))
        return armedFault(call, path: path)
    }

    private static func armedFault(_ call: Call, path: String) -> Int32? {
        lock.withLock {
            var result: Int32?
            for plan in plans {
                if let code = plan.consider(call, path: path), result == nil { result = code }
            }
            return result
        }
    }
}
