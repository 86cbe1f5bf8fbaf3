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
        private var counted = 0
        private var faults = 0
        private var seen: [(Call, String)] = []

        init(folder: String, failing: Int?, kind: Call?, errno: Int32, persistent: Bool) {
            self.folder = folder.hasSuffix("/") ? String(folder.dropLast()) : folder
            self.failing = failing
            self.kind = kind
            self.errno = errno
            self.persistent = persistent
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
            guard path == folder || path.hasPrefix(folder + "/") else { return nil }
            guard kind == nil || kind == call else { return nil }
            counted += 1
            seen.append((call, path))
            guard let failing, counted == failing || (persistent && counted > failing) else { return nil }
            faults += 1
            return errno
        }
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
        guard isArmed, let path else { return nil }
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
