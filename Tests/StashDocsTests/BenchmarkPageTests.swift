import Foundation
import StashTestSupport
import Testing

/// `Scripts/render-benchmarks.py`, which writes the benchmark page, its charts and the
/// README's table from `stash-bench --json` runs, on results made up for the purpose: the
/// page says what the runs support and nothing more.
@Suite struct BenchmarkPageTests {
    /// One result line as `stash-bench --json` prints it, each sample of `ops` operations
    /// taking `seconds`.
    private func line(_ suite: String, _ name: String, _ impl: String, seconds: [Double], ops: Int = 1000, extra: String = "") -> String {
        let rates = seconds.map { Double(ops) / $0 }.sorted()
        let median = rates[rates.count / 2]
        let spread = (rates.last! - rates.first!) / 2 / median
        let samples = seconds.map { String($0) }.joined(separator: ",")
        let sampleOps = seconds.map { _ in String(ops) }.joined(separator: ",")
        return #"{"suite":"\#(suite)","case":"\#(name)","impl":"\#(impl)","ops":\#(ops),"seconds":\#(seconds[0]),"#
            + #""ops_per_s":\#(median),"ops_per_s_min":\#(rates.first!),"ops_per_s_max":\#(rates.last!),"spread":\#(spread),"#
            + #""samples":[\#(samples)],"sample_ops":[\#(sampleOps)]\#(extra)}"#
    }

    /// Three runs: Stash twice as fast as both SQLite peers in every round; even with a
    /// dictionary, sometimes ahead and sometimes behind; a property-list case whose operations
    /// are records of a document; a file size that only Stash's row has; a single sample.
    private func resultLines() -> String {
        var lines = [#"{"machine": {"commit": "0123456789ab", "CPU": "test"}}"#]
        for run in 1...3 {
            lines.append(#"{"run": \#(run)}"#)
            lines.append(#"{"note":"SQLite 3.0.0, as linked"}"#)
            lines.append(line("disk", "read-small", "stash", seconds: [0.010, 0.011, 0.0105]))
            lines.append(line("disk", "read-small", "sqlite-expert", seconds: [0.020, 0.0221, 0.0209]))
            lines.append(line("disk", "read-small", "sqlite-raw", seconds: [0.030, 0.033, 0.0315]))
            lines.append(line("memory", "get-random", "stash", seconds: [0.010, 0.012, 0.011]))
            lines.append(line("memory", "get-random", "dictionary+lock", seconds: [0.011, 0.0105, 0.0112]))
            lines.append(line("plist", "read-binary", "stash", seconds: [0.5, 0.5, 0.5], extra: #","bytes_per_op":100.0,"document_bytes":100000"#))
            lines.append(line("plist", "read-binary", "PropertyListSerialization", seconds: [1.0, 1.0, 1.0], extra: #","bytes_per_op":100.0,"document_bytes":100000"#))
            lines.append(line("preferences", "write-int", "stash", seconds: [0.01, 0.01, 0.01], extra: #","usedBytes":4242"#))
            lines.append(line("preferences", "write-int", "MMKV", seconds: [0.02, 0.02, 0.02]))
            lines.append(line("disk", "write-small", "stash", seconds: [0.020, 0.021, 0.0205]))
            lines.append(line("disk", "write-small", "sqlite-expert", seconds: [0.010, 0.0101, 0.0102]))
            // Stash's p99 is the lower one in the first run only.
            let p99 = #","offered":9000,"p99_ms":"\#(run == 1 ? "1.00" : "3.00")""#
            lines.append(line("http", "proxy-mixed-90pct", "stash", seconds: [1.0], ops: 9000, extra: p99))
            lines.append(line("http", "proxy-mixed-90pct", "nginx", seconds: [1.0], ops: 9000, extra: #","offered":9000,"p99_ms":"2.00""#))
        }
        lines.append(#"{"run": 4}"#)
        let openLoop = #","offered":20000,"p50_ms":"0.30","p99_ms":"1.20","p999_ms":"3.10""#
        lines.append(line("http", "proxy-mixed", "stash", seconds: [1.0, 1.0], ops: 20000, extra: openLoop))
        lines.append(line("http", "proxy-mixed", "nginx", seconds: [1.0, 1.01], ops: 20000, extra: openLoop.replacingOccurrences(of: "1.20", with: "1.50")))
        lines.append(line("objects", "open", "stash", seconds: [0.01]))
        lines.append(line("objects", "open", "grdb-record", seconds: [0.02]))
        return lines.joined(separator: "\n") + "\n"
    }

    private struct Rendered {
        var page: String
        var readme: String
        /// Where the charts are; kept alive as long as the result.
        var folder: TemporaryFolder
        var charts: URL { folder.url }
    }

    private func render() async throws -> Rendered {
        let folder = TemporaryFolder("benchmark-page")
        let results = folder.url.appendingPathComponent("results.jsonl")
        let method = folder.url.appendingPathComponent("method.md")
        let readme = folder.url.appendingPathComponent("README.md")
        try Data(resultLines().utf8).write(to: results)
        try Data("# Benchmarks\n".utf8).write(to: method)
        try Data("intro\n<!-- benchmarks:start -->\nold\n<!-- benchmarks:end -->\nafter\n".utf8).write(to: readme)
        let script = DocumentedExample.packageRoot.appendingPathComponent("Scripts/render-benchmarks.py").path
        let page = try await offThePool { () throws -> String in
            let child = try ChildProcess(URL(fileURLWithPath: "/usr/bin/env"), ["python3", script, results.path, method.path, readme.path])
            let lines = child.readAllLines()
            let status = child.wait()
            guard status == 0 else { throw RenderFailure(description: "render-benchmarks.py exited with \(status): \(child.standardError())") }
            return lines.joined(separator: "\n")
        }
        return Rendered(page: page, readme: try String(contentsOf: readme, encoding: .utf8), folder: folder)
    }

    private struct RenderFailure: Error, CustomStringConvertible { var description: String }

    private func row(_ page: String, _ name: String) -> String {
        page.split(separator: "\n").first { $0.hasPrefix("| \(name)") }.map(String.init) ?? ""
    }

    @Test func aRatioCarriesItsIntervalAndAnOverlapIsParity() async throws {
        let rendered = try await render()
        let disk = row(rendered.page, "read-small")
        #expect(disk.contains("sqlite-expert"), "\(disk)")
        #expect(disk.contains(#/sqlite-expert [^;]*\(2\.00× \(1\.9\d–2\.0\d, 9 pairs\)\)/#), "\(disk)")
        #expect(disk.contains("sqlite-raw (naive)"), "\(disk)")
        let memory = row(rendered.page, "get-random")
        #expect(memory.contains("(parity: "), "\(memory)")
        #expect(rendered.readme.contains("| dictionary+lock parity |"), "\(rendered.readme)")
        #expect(rendered.readme.contains("| sqlite-expert 2.00× |") && !rendered.readme.contains("sqlite-raw"), "naive peers stay on the page: \(rendered.readme)")
        #expect(rendered.readme.hasPrefix("intro\n<!-- benchmarks:start -->") && rendered.readme.hasSuffix("<!-- benchmarks:end -->\nafter\n"))
        #expect(rendered.page.contains("commit: 0123456789ab"))
        #expect(rendered.page.components(separatedBy: "SQLite 3.0.0").count == 2, "a note repeated by every run is listed once")
    }

    @Test func aSingleSampleSaysSoInsteadOfAZeroSpread() async throws {
        let open = row(try await render().page, "open")
        #expect(open.contains("n=1") && open.contains("one pair") && !open.contains("±0%"), "\(open)")
    }

    @Test func megabytesPerSecondCountTheBytesOfAnOperation() async throws {
        // 1,000 records in 0.5 s, 100 bytes each: 0.2 MB/s, whatever the document's size.
        let plist = row(try await render().page, "read-binary")
        #expect(plist.contains("2,000 ±0% (0.20 MB/s)"), "\(plist)")
        #expect(plist.contains("100,000-byte document"), "\(plist)")
    }

    @Test func aFigureOfOneImplementationStaysOnItsRow() async throws {
        let prefs = row(try await render().page, "write-int")
        let peer = prefs.components(separatedBy: "MMKV").last ?? ""
        #expect(prefs.contains("file 4,242 bytes used") && !peer.contains("4,242"), "\(prefs)")
    }

    @Test func anOpenLoopCaseComparesLatenciesNotRates() async throws {
        let rendered = try await render()
        let mixed = row(rendered.page, "proxy-mixed (")
        #expect(mixed.contains("offered 20,000 requests/s") && mixed.contains("p99 1.20 ms") && mixed.contains("p99 1.50 ms"), "\(mixed)")
        #expect(!mixed.contains("×") && !mixed.contains("parity"), "\(mixed)")
        let chart = try? String(contentsOf: rendered.charts.appendingPathComponent("http.svg"), encoding: .utf8)
        #expect(chart.map { !$0.contains("proxy-mixed") } ?? true, "an open-loop case has no ratio to chart")
    }

    @Test func eachGoalSaysWhetherItHoldsAndWhyNot() async throws {
        let rendered = try await render()
        let reads = row(rendered.page, "disk cache small reads")
        #expect(reads.contains("**holds**") && reads.hasSuffix("|  |"), "a goal that holds needs no reason: \(reads)")
        let writes = row(rendered.page, "disk cache small writes")
        #expect(writes.contains("0.49×") && writes.contains("**slower**") && writes.contains("eviction"), "\(writes)")
        let latency = row(rendered.page, "proxy p99 at 90%")
        #expect(latency.contains("at most in 1 of 3 runs") && latency.contains("**parity**"), "\(latency)")
        #expect(rendered.readme.contains("Goals not met: disk writes (slower)"), "\(rendered.readme)")
        #expect(!rendered.readme.contains("disk reads"), "a goal that holds is not listed as unmet")
    }

    @Test func eachSuiteHasAChartWithTheParityLine() async throws {
        let rendered = try await render()
        for suite in ["disk", "memory", "plist", "preferences", "objects"] {
            #expect(rendered.page.contains("](benchmarks/\(suite).svg)"), "\(suite)")
            let svg = try String(contentsOf: rendered.charts.appendingPathComponent("\(suite).svg"), encoding: .utf8)
            #expect(svg.hasPrefix("<svg ") && svg.contains(##"stroke="#000" stroke-width="2""##), "\(suite)")
        }
        let memory = try String(contentsOf: rendered.charts.appendingPathComponent("memory.svg"), encoding: .utf8)
        #expect(memory.contains(##"fill="#888""##), "a parity row is grey")
        let disk = try String(contentsOf: rendered.charts.appendingPathComponent("disk.svg"), encoding: .utf8)
        #expect(disk.contains(##"fill="#2a7d2a""##), "a ratio clear of 1.0 in Stash's favour is green")
    }
}
