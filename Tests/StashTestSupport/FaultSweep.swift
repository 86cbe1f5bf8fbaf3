public import Foundation
import StashCore

/// An I/O fault sweep over one store, the way SQLite tests itself: a fixed workload runs
/// once to count the file calls it makes (``FaultInjection``), then once per call N, in a
/// fresh folder, with exactly call N failing (`EIO`, `ENOSPC` and `EDQUOT` in turn). After
/// each run, and again after closing and reopening the store with the fault gone, it checks:
///
/// - the step that met the fault threw a ``StashError`` (the code `errno` maps to, when the
///   error carries the injected `errno`), and every other step returned; a fault may be
///   absorbed (a failed cleanup of a temporary file), except a failed fsync or msync;
/// - what the store shows is what the acknowledged steps made, with the failed step either
///   wholly applied or not at all: nothing acknowledged lost, nothing half applied;
/// - the store opens again, and shows the same;
/// - a further write succeeds and shows.
///
/// ```swift
/// let report = FaultSweep(name: "ArchiveFile", initial: nil, open: { ArchiveFile<[String]>(url: $0.appendingPathComponent("a")) },
///                         close: { _ in }, read: { try $0.loadIfPresent() }, steps: steps, then: last).run()
/// #expect(report.problems.isEmpty, "\(report.problems)")
/// ```
///
/// A step's `change` says what the step does to the model: a change to it (`$0["a"] = 1`),
/// or, for stores that save a whole snapshot, the snapshot itself.
public struct FaultSweep<Store, Model: Equatable> {
    /// One acknowledged operation of the workload and what it does to the model.
    public struct Step {
        public var name: String
        public var apply: (Store) throws -> Void
        public var change: (inout Model) -> Void

        public init(_ name: String, apply: @escaping (Store) throws -> Void, change: @escaping (inout Model) -> Void) {
            self.name = name
            self.apply = apply
            self.change = change
        }
    }

    /// What a sweep found: its figures, and every broken promise in words.
    public struct Report: CustomStringConvertible {
        public var name: String
        /// File calls of one fault-free run of the workload (store opening included).
        public var calls = 0
        /// Runs in which the planned call was reached and failed.
        public var injected = 0
        /// Of those, runs in which a step threw (the others were absorbed: a failed cleanup).
        public var threw = 0
        /// How many calls of each kind one run makes, e.g. `open 4, write 3, fsync 3`.
        public var kinds = ""
        public var problems: [String] = []

        public var description: String {
            "\(name): \(calls) I/O calls (\(kinds)), \(injected) faults injected (\(threw) reported by a thrown StashError, \(injected - threw) absorbed), \(problems.count) problems"
        }
    }

    public var name: String
    public var initial: Model
    public var open: (URL) throws -> Store
    public var close: (Store) -> Void
    public var read: (Store) throws -> Model
    public var steps: [Step]
    /// The write made after the reopen, once the fault is gone.
    public var then: Step
    public var errnos: [Int32] = [EIO, ENOSPC, EDQUOT]

    public init(
        name: String, initial: Model, open: @escaping (URL) throws -> Store, close: @escaping (Store) -> Void,
        read: @escaping (Store) throws -> Model, steps: [Step], then: Step
    ) {
        self.name = name
        self.initial = initial
        self.open = open
        self.close = close
        self.read = read
        self.steps = steps
        self.then = then
    }

    /// Runs the counting pass, then one pass per call, and prints the report's line.
    public func run() -> Report {
        var report = Report(name: name)
        let folder = TemporaryFolder("faults")
        let counting = FaultInjection.arm(folder: folder.url.path)
        var model = initial
        do {
            let store = try open(folder.url)
            for step in steps {
                try step.apply(store)
                step.change(&model)
            }
            counting.disarm()
            let shown = try read(store)
            if shown != model { report.problems.append("without faults, shows \(shown), expected \(model)") }
            close(store)
        } catch {
            report.problems.append("the workload fails without faults: \(error)")
        }
        counting.disarm()
        report.calls = counting.calls
        let log = counting.log
        report.kinds = FaultInjection.Call.allCases.compactMap { kind in
            let count = log.filter { $0.call == kind }.count
            return count == 0 ? nil : "\(kind.rawValue) \(count)"
        }.joined(separator: ", ")
        for call in 0..<report.calls {
            runFailing(call + 1, errno: errnos[call % errnos.count], into: &report)
        }
        print("fault sweep: \(report)")
        return report
    }

    private func runFailing(_ call: Int, errno code: Int32, into report: inout Report) {
        let folder = TemporaryFolder("fault")
        let plan = FaultInjection.arm(folder: folder.url.path, failing: call, with: code)
        defer { plan.disarm() }
        let label = "call \(call) (\(String(cString: strerror(code))))"
        var acknowledged = initial
        var withFailed: Model?
        var failedStep: String?
        func failed(_ step: String, _ error: any Error) {
            if let failedStep {
                report.problems.append("\(label): \(step) failed too, after \(failedStep): \(error)")
            }
            failedStep = failedStep ?? step
            guard let error = error as? StashError else {
                return report.problems.append("\(label): \(step) threw \(type(of: error)), not a StashError: \(error)")
            }
            let expected: StashError.Code = code == EIO ? .io : .diskFull
            if error.posixCode == code, error.code != expected {
                report.problems.append("\(label): \(step) threw \(error.code), expected \(expected): \(error)")
            }
        }
        var store: Store?
        do { store = try open(folder.url) } catch { failed("open", error) }
        if let store {
            for step in steps {
                do {
                    try step.apply(store)
                    step.change(&acknowledged)
                    if withFailed != nil { step.change(&withFailed!) }
                } catch {
                    failed(step.name, error)
                    withFailed = acknowledged
                    step.change(&withFailed!)
                }
            }
        }
        plan.disarm()
        let reached = plan.injected > 0
        if reached { report.injected += 1 }
        if reached, failedStep != nil { report.threw += 1 }
        if !reached, failedStep != nil { report.problems.append("\(label): \(failedStep!) failed with no fault injected") }
        // Every sync error must be reported: a failed fsync or msync that nobody hears of is
        // a write that looks power-safe and is not.
        if reached, failedStep == nil, let kind = plan.log.dropFirst(call - 1).first?.call, [.fsync, .msync, .syncFolder].contains(kind) {
            report.problems.append("\(label): a failed \(kind.rawValue) was not reported")
        }
        let context = "\(label), \(failedStep.map { "failed in \($0)" } ?? "absorbed")"
        func accepts(_ shown: Model) -> Bool { shown == acknowledged || shown == withFailed }
        if let store {
            do {
                let visible = try read(store)
                if !accepts(visible) {
                    report.problems.append("\(context): shows \(visible), expected \(acknowledged)\(withFailed.map { " or \($0)" } ?? "")")
                }
            } catch {
                report.problems.append("\(context): reading after the fault failed: \(error)")
            }
            close(store)
        }
        do {
            let reopened = try open(folder.url)
            defer { close(reopened) }
            var shown = try read(reopened)
            if !accepts(shown) {
                report.problems.append("\(context): reopened shows \(shown), expected \(acknowledged)\(withFailed.map { " or \($0)" } ?? "")")
            }
            try then.apply(reopened)
            then.change(&shown)
            let after = try read(reopened)
            if after != shown { report.problems.append("\(context): after \(then.name), shows \(after), expected \(shown)") }
        } catch {
            report.problems.append("\(context): the store does not work after a reopen: \(error)")
        }
    }
}
