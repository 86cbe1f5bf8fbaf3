import Foundation

/// A named group of benchmark cases. Each suite lives in `Suites/<Name>Suite.swift`.
struct BenchSuite: Sendable {
    var name: String
    var run: @Sendable (BenchContext) async throws -> Void

    /// Every suite, in the order `stash-bench` runs them.
    static let all: [BenchSuite] = [
        BenchSuite(name: "memory", run: MemorySuite.run),
        BenchSuite(name: "disk", run: DiskSuite.run),
        BenchSuite(name: "preferences", run: PreferencesSuite.run),
        BenchSuite(name: "http", run: HTTPSuite.run),
        BenchSuite(name: "plist", run: PropertyListSuite.run),
        BenchSuite(name: "shared", run: SharedSuite.run),
        BenchSuite(name: "objects", run: ObjectsSuite.run),
    ]
}

/// What a suite gets: where to report, how much to scale its workloads, and how to sample.
struct BenchContext: Sendable {
    let reporter: BenchReporter
    let scale: Double
    /// Samples per implementation and case (`--samples`, default 5).
    var sampleCount = 5
    /// The shortest a sample may last; workloads repeat until it does (`--sample-seconds`).
    var minimumSampleSeconds = 0.2
    /// The cases to run (`--case`, repeatable); empty runs every case.
    var cases: Set<String> = []
    /// The implementations to run (`--impl`, repeatable); empty runs every one.
    var impls: Set<String> = []

    /// Whether case `name` runs (`--case` names it, or names none). A suite may skip a
    /// case's setup when this is false; ``compare(suite:case:_:extra:extraOf:)`` skips the case itself.
    func runs(_ name: String) -> Bool { cases.isEmpty || cases.contains(name) }

    /// Whether implementation `name` runs (`--impl` names it, or names none).
    func runsImpl(_ name: String) -> Bool { impls.isEmpty || impls.contains(name) }

    /// `count` scaled by `--scale`, at least 1.
    func scaled(_ count: Int) -> Int { max(1, Int((Double(count) * scale).rounded())) }

    /// A fresh temporary folder for one suite; removed by `removeScratch`.
    func makeScratch(_ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("stash-bench-\(name)-\(UInt32.random(in: 0...UInt32.max))", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    func removeScratch(_ url: URL) { try? FileManager.default.removeItem(at: url) }

    /// Times `body` once, which performs `ops` operations, and reports it as one sample.
    /// Prefer ``compare(suite:case:_:extra:extraOf:)``, which samples and interleaves.
    @discardableResult
    func measure(
        suite: String, case name: String, impl: String, ops: Int,
        extra: [String: String] = [:], _ body: () throws -> Void
    ) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        reporter.record(BenchResult(suite: suite, case: name, impl: impl, ops: ops, samples: [seconds], extra: extra))
        return seconds
    }

    /// Times an async `body` once, which performs `ops` operations, and reports it as one
    /// sample. Prefer ``compareAsync(suite:case:_:extra:extraOf:)``.
    @discardableResult
    func measureAsync(
        suite: String, case name: String, impl: String, ops: Int,
        extra: [String: String] = [:], _ body: () async throws -> Void
    ) async rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try await body()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        reporter.record(BenchResult(suite: suite, case: name, impl: impl, ops: ops, samples: [seconds], extra: extra))
        return seconds
    }
}
