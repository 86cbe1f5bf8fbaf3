public import Foundation
import StashCore

/// Power cuts, simulated: the crash-state explorer, in the spirit of ALICE (OSDI '14), LazyFS
/// and SQLite's crash-test VFS.
///
/// It runs a workload once in a fresh folder, watching every file call the package makes
/// there (``FaultInjection/observe(folder:_:)``). Before each call, and after the last, it
/// notes what is synced and what is not; from each such moment it builds the files a power cut
/// could leave under a ``PersistenceModel`` (nothing unsynced, everything, one torn sector,
/// or unsynced sectors and changes to names kept at random), writes each distinct one to a
/// folder, and hands it to `check` with what the workload had been told was kept at that
/// moment. `check` opens the store on the folder and returns the broken promises in words.
///
/// ```swift
/// let explorer = CrashExplorer<[String: Int]>("preferences")
/// let report = explorer.run(
///     workload: { folder in … },                 // writes, noting what returned
///     expectation: { acknowledged.withLock { $0 } },
///     check: { folder, acknowledged in … }        // opens, reads, writes once more
/// )
/// #expect(report.violations.isEmpty, "\(report)")
/// ```
///
/// Deterministic under a seed (printed; `STASH_TEST_SEED` replays it). How many states it
/// checks is `budget`, or `STASH_CRASH_BUDGET` from the environment (what
/// `Scripts/crash-explore.sh` sets).
public struct CrashExplorer<Expectation> {
    /// What a run found.
    public struct Report: CustomStringConvertible {
        public var name: String
        public var model: PersistenceModel
        public var seed: UInt64
        /// The moments recorded (one per file call, and one after the workload).
        public var points = 0
        /// The distinct crash states opened and checked.
        public var states = 0
        /// Every broken promise: the moment, the image's choice and what was wrong.
        public var violations: [String] = []

        public var description: String {
            let listed = violations.prefix(10).map { "\n  " + $0 }.joined()
            return "\(name): \(states) crash states, \(violations.count) violations (\(model.rawValue), \(points) moments, seed \(seed))\(listed)"
        }
    }

    public var name: String
    public var model: PersistenceModel
    public var budget: Int

    /// The number of crash states a test run checks per store and model unless
    /// `STASH_CRASH_BUDGET` says otherwise.
    public static var defaultBudget: Int { 240 }

    public init(_ name: String, model: PersistenceModel = .ext4Ordered, budget: Int? = nil) {
        self.name = name
        self.model = model
        self.budget = ProcessInfo.processInfo.environment["STASH_CRASH_BUDGET"].flatMap(Int.init) ?? budget ?? Self.defaultBudget
    }

    /// Runs `workload` in a fresh folder, then checks the crash states it allows; prints the
    /// report's first line. What `prepare` writes into the folder first is taken as synced
    /// (a file an older version left, say).
    public func run(
        prepare: (URL) throws -> Void = { _ in },
        workload: (URL) throws -> Void,
        expectation: @escaping @Sendable () -> Expectation,
        check: (URL, Expectation) throws -> [String]
    ) -> Report {
        let seed = SeededGenerator.freshSeed(for: "crash explorer \(name), \(model.rawValue)")
        var report = Report(name: name, model: model, seed: seed)
        let folder = TemporaryFolder("crash")
        let store = folder.file("store")
        try! FileManager.default.createDirectory(at: store, withIntermediateDirectories: true)
        do { try prepare(store) } catch { report.violations.append("the preparation failed: \(error)") }
        let recorder = CrashRecorder(root: store.path, model: model, expectation: expectation)
        let plan = FaultInjection.observe(folder: store.path) { recorder.observe($0) }
        do {
            try workload(store)
        } catch {
            report.violations.append("the workload failed with no crash: \(error)")
        }
        plan.disarm()
        recorder.finish()
        let points = recorder.points
        report.points = points.count

        var generator = SeededGenerator(seed: seed)
        var seen = Set<CrashImage>()
        let image = folder.file("image")
        // Rounds over every moment, in a seeded order; each round gives each moment one
        // image, the choices turning from moment to moment, then at random, until the budget
        // is spent or five rounds in a row find no state not seen before.
        let choices = CrashImage.Choice.allCases
        let rounds = choices.count + max(8, 8 * budget / max(1, points.count))
        var order = Array(points.indices)
        var stalled = 0
        explore: for round in 0..<rounds {
            let before = report.states
            defer { if round >= choices.count { stalled = report.states == before ? stalled + 1 : 0 } }
            if stalled >= 5 { break }
            order.shuffle(using: &generator)
            for index in order {
                guard report.states < budget else { break explore }
                let point = points[index]
                let choice = round < choices.count ? choices[(round + index) % choices.count] : .anything
                let state = point.image(choice, model: model, using: &generator)
                guard seen.insert(state).inserted else { continue }
                report.states += 1
                try? FileManager.default.removeItem(at: image)
                do {
                    try FileManager.default.createDirectory(at: image, withIntermediateDirectories: true)
                    try state.write(to: image)
                    for problem in try check(image, point.expectation) {
                        report.violations.append("\(point.label), \(choice): \(problem)")
                    }
                } catch {
                    report.violations.append("\(point.label), \(choice): \(error)")
                }
            }
        }
        try? FileManager.default.removeItem(at: image)
        print("crash explorer: \(report.description.prefix { $0 != "\n" })")
        return report
    }
}
