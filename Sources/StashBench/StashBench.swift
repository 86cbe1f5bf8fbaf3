import ArgumentParser
import Foundation
import GRDBSQLite

/// `stash-bench`: Stash against its peers, side by side in one process.
///
/// Build in release mode: `swift run -c release stash-bench memory disk --json`.
@main
struct StashBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stash-bench",
        abstract: "Benchmarks of Stash and its peers, measured side by side in one run.",
        discussion: "Suites: \(BenchSuite.all.map(\.name).joined(separator: ", ")). With no suite, all run."
    )

    @Argument(help: "The suites to run (default: all).")
    var suites: [String] = []

    @Flag(name: .long, help: "Print one JSON object per line instead of a table.")
    var json = false

    @Option(name: .long, help: "Scale every workload by this factor (for a quick smoke run, e.g. 0.1).")
    var scale: Double = 1

    @Option(name: .long, help: "Samples per implementation and case (median and spread are reported).")
    var samples: Int = 5

    @Option(name: .long, help: "The shortest a sample may last, in seconds; workloads repeat until it does.")
    var sampleSeconds: Double = 0.2

    @Option(name: .customLong("case"), help: "Run only the cases with this name (repeat for several; default: every case).")
    var cases: [String] = []

    @Option(name: .customLong("impl"), help: "Run only the implementations with this name, e.g. `--impl stash` to profile it alone (repeatable; default: all).")
    var impls: [String] = []

    func run() async throws {
        if try FloorPeer.serveIfAsked() { return }
        if try OpenLoadGenerator.runIfAsked() { return }
        let chosen = suites.isEmpty ? BenchSuite.all : try suites.map { name in
            guard let suite = BenchSuite.all.first(where: { $0.name == name }) else {
                throw ValidationError("unknown suite '\(name)'; known: \(BenchSuite.all.map(\.name).joined(separator: ", "))")
            }
            return suite
        }
        #if DEBUG
        FileHandle.standardError.write(Data("warning: a debug build; measure with `swift run -c release stash-bench`\n".utf8))
        #endif
        let reporter = BenchReporter(json: json)
        reporter.note("SQLite \(String(cString: sqlite3_libversion())), as linked into stash-bench and Stash")
        for suite in chosen {
            let context = BenchContext(
                reporter: reporter, scale: scale, sampleCount: max(1, samples), minimumSampleSeconds: max(0, sampleSeconds),
                cases: Set(cases), impls: Set(impls)
            )
            try await suite.run(context)
        }
        reporter.finish()
    }
}
