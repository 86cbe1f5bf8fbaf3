import Foundation
import Stash

/// `stash-bench disk` cases `scale-10k`, `scale-100k` and `scale-1m`: a ``DiskCache`` of
/// 10,000, 100,000 or 1,000,000 entries of 100-byte values (scaled by `--scale`), and the
/// same rows in one SQLite table (``SQLiteRawStore``, naive and expert), each reopened in a
/// fresh child process for each sample, with the store's files dropped from the page cache
/// first (`fdatasync`, then `posix_fadvise(DONTNEED)`), so that every contender starts cold.
/// The `-after-kill` cases reopen after a child that wrote to the store was killed with
/// `SIGKILL` (Stash's location index is then made anew and filled as it reads; SQLite
/// recovers its WAL).
/// The child reports:
///
/// - the reopen time (`DiskCache(directory:)` of the populated folder),
/// - the rate of the first random reads, on the cold page cache (`cold_reads_per_s`, the
///   warm-up pass), and their 99th percentile latency (`cold_p99_ms`: after a kill, the
///   reads that fill the location index again),
/// - the memory every contender holds, measured the same way (`footprint_bytes_per_entry`):
///   anonymous memory growth plus the store's file pages resident in the page cache after the
///   reads (`mincore` over each of its files, whether the store maps them or reads them with
///   `pread`), and the store's bytes on disk (`disk_bytes_per_entry`),
/// - its resident memory growth from just before the open to after the reads, per entry,
///   in two measures (from `/proc/self/smaps_rollup`): `bytes_per_entry`, all resident pages
///   (`Rss`: heap, and pages of files mapped, the manifest's included), and
///   `anon_bytes_per_entry`, anonymous pages alone (`Anonymous`: heap and private
///   allocations, what the process itself made and the system cannot drop); the first after
///   the open alone too (`open_bytes_per_entry`). Pages of a mapped file are clean: the system
///   reclaims them without writing and Apple's jetsam does not count them
///   (`phys_footprint`), while Linux counts them in RSS. Both are reported so that neither
///   cost hides,
/// - the rate of random reads (a warm-up pass, then the timed pass, long enough for the
///   flushes of the reads' last-access dates, a second apart, to fall inside it), which is
///   the case's ops/s.
///
/// A child process, not the parent, so that the baseline holds no heap freed by the
/// population (which the allocator would hand back to the open without the resident size
/// growing). The population is built once per size, untimed, by each implementation itself.
enum DiskScaleCases {
    static let sizes: [(name: String, entries: Int)] = [("scale-10k", 10_000), ("scale-100k", 100_000), ("scale-1m", 1_000_000)]
    static let probeVariable = "STASH_BENCH_DISK_SCALE_PROBE"
    static let readCount = 400_000
    static let valueSize = 100

    static func key(_ index: Int) -> String { "https://example.com/api/item/\(index).json" }

    /// The implementations measured at scale: Stash, and one SQLite table read through the
    /// C API (``SQLiteRawStore``: the same 100-byte values under the same keys, mapped the
    /// same way), naive and as SQLite's documentation recommends.
    static let impls = ["stash", "sqlite-raw", "sqlite-expert"]

    static func sqliteTuning(_ impl: String) -> SQLiteRawStore.Tuning? {
        switch impl {
        case "sqlite-raw": .naive
        case "sqlite-expert": .expert(withoutRowID: true)   // every row here is a 100-byte value
        default: nil
        }
    }

    static func run(_ context: BenchContext, scratch: URL) async throws {
        let impls = Self.impls.filter(context.runsImpl)
        guard !impls.isEmpty else { return }
        for (name, entries) in sizes where context.runs(name) || context.runs(name + "-after-kill") {
            let count = context.scaled(entries)
            let folder = scratch.appendingPathComponent(name, isDirectory: true)
            for impl in impls { try await populate(folder.appendingPathComponent(impl), impl: impl, count: count) }
            let reads = context.scaled(readCount)
            for killed in [false, true] where context.runs(killed ? name + "-after-kill" : name) {
                var probes: [String: [Probe]] = [:]
                // Interleaved: each sample runs every implementation once, the order rotating.
                for sample in 0..<context.sampleCount {
                    for offset in impls.indices {
                        let impl = impls[(sample + offset) % impls.count]
                        let store = folder.appendingPathComponent(impl)
                        if killed { try probe(store, impl: impl, count: count, reads: 0, seed: 0, mode: "kill") }
                        if let probe = try probe(store, impl: impl, count: count, reads: reads, seed: UInt64(sample + 1)) {
                            probes[impl, default: []].append(probe)
                        }
                    }
                }
                for impl in impls {
                    let runs = probes[impl] ?? []
                    context.reporter.record(BenchResult(
                        suite: DiskSuite.suite, case: killed ? name + "-after-kill" : name, impl: impl,
                        sampleOps: runs.map { _ in reads }, samples: runs.map(\.readSeconds),
                        extra: figures(runs, count: count, reads: reads)
                    ))
                }
            }
            try? FileManager.default.removeItem(at: folder)
        }
        context.reporter.note("disk: scale-* reopen a populated cache of 100-byte values in a child process per sample, its files first dropped from the page cache: ops/s is random reads after a warm-up pass (cold_reads_per_s: that first pass), footprint_bytes_per_entry the anonymous memory growth plus the store's file pages resident after the reads (mincore), bytes_per_entry the RSS growth (mapped pages included), anon_bytes_per_entry its anonymous part (what jetsam's footprint counts), disk_bytes_per_entry the store's files; -after-kill reopens after a writer was killed with SIGKILL")
    }

    /// The medians of a case's probes, as the result's extra fields.
    private static func figures(_ runs: [Probe], count: Int, reads: Int) -> [String: String] {
        func median(_ values: [Double]) -> Double { values.isEmpty ? 0 : values.sorted()[values.count / 2] }
        func perEntry(_ value: (Probe) -> Double) -> String { String(format: "%.0f", median(runs.map(value)) / Double(count)) }
        let coldReads = max(1, reads / 4)
        return [
            "entries": "\(count)",
            "bytes_per_entry": perEntry(\.readGrowth),
            "anon_bytes_per_entry": perEntry(\.anonymousGrowth),
            "open_bytes_per_entry": perEntry(\.openGrowth),
            "footprint_bytes_per_entry": perEntry { $0.anonymousGrowth + $0.residentFileBytes },
            "disk_bytes_per_entry": perEntry(\.diskBytes),
            "cold_reads_per_s": String(format: "%.0f", median(runs.map { Double(coldReads) / max($0.coldReadSeconds, 1e-9) })),
            "cold_p99_ms": String(format: "%.3f", median(runs.map(\.coldP99Seconds)) * 1000),
            "reopen_ms": String(format: "%.1f", median(runs.map(\.reopenSeconds)) * 1000),
            "reopen_ms_max": String(format: "%.1f", (runs.map(\.reopenSeconds).max() ?? 0) * 1000),
        ]
    }

    /// Writes `count` entries with `impl`, untimed, and closes the store: Stash's own
    /// writes, or one SQLite transaction.
    private static func populate(_ folder: URL, impl: String, count: Int) async throws {
        if let tuning = sqliteTuning(impl) {
            let store = try SQLiteRawStore(folder: folder, tuning: tuning)
            try store.execute("BEGIN")
            for index in 0..<count { try store.set(value(index), key(index)) }
            try store.execute("COMMIT")
            return
        }
        var configuration = DiskCache.Configuration()
        configuration.sizeLimit = nil
        let cache = try DiskCache(directory: folder, configuration: configuration)
        for index in 0..<count { try cache.set(value(index), forKey: key(index)) }
        try await cache.flush()
        try cache.close()
    }

    static func value(_ index: Int) -> Data { Data(repeating: UInt8(truncatingIfNeeded: index), count: valueSize) }

    /// What one child process measured.
    struct Probe {
        var reopenSeconds: Double
        var readSeconds: Double
        var openGrowth: Double
        var readGrowth: Double
        var anonymousGrowth: Double
        var coldReadSeconds: Double
        var residentFileBytes: Double
        var diskBytes: Double
        /// The 99th percentile of the first (cold) pass's reads.
        var coldP99Seconds: Double
    }

    /// Runs one child process on `folder` and reads its figures; in the mode `kill`, a child
    /// that writes one entry, commits it and kills itself with `SIGKILL` (no figures).
    @discardableResult
    private static func probe(_ folder: URL, impl: String, count: Int, reads: Int, seed: UInt64, mode: String = "read") throws -> Probe? {
        let child = try BenchExecutable.runChild(
            ["disk", "--case", "none"], variable: probeVariable, value: "\(folder.path)|\(count)|\(reads)|\(seed)|\(impl)|\(mode)"
        )
        if mode == "kill" {
            guard child.killedBySignal, child.status == SIGKILL else {
                throw StashError(.io, "disk scale writer was not killed (status \(child.status)): \(child.output)")
            }
            return nil
        }
        guard let fields = child.figures(after: "scale-probe") else {
            throw StashError(.io, "disk scale probe failed (status \(child.status)): \(child.output)")
        }
        guard fields.count == 9 else { throw StashError(.io, "disk scale probe: unreadable output \(child.output)") }
        return Probe(
            reopenSeconds: fields[0], readSeconds: fields[1], openGrowth: fields[2], readGrowth: fields[3],
            anonymousGrowth: fields[4], coldReadSeconds: fields[5], residentFileBytes: fields[6], diskBytes: fields[7],
            coldP99Seconds: fields[8]
        )
    }

    /// The child's side, when ``probeVariable`` is set: prints
    /// `scale-probe <reopen s> <read s> <open growth bytes> <read growth bytes> <anonymous read growth bytes>
    /// <cold read s> <resident file bytes> <disk bytes> <cold read p99 s>`. Returns whether it ran.
    static func runProbeIfAsked() throws -> Bool {
        guard let spec = ProcessInfo.processInfo.environment[probeVariable] else { return false }
        let parts = spec.split(separator: "|").map(String.init)
        guard parts.count == 6, let count = Int(parts[1]), let reads = Int(parts[2]), let seed = UInt64(parts[3]), impls.contains(parts[4]) else {
            throw StashError(.io, "bad \(probeVariable): \(spec)")
        }
        let folder = URL(fileURLWithPath: parts[0], isDirectory: true)
        if parts[5] == "kill" { try writeThenDie(folder, impl: parts[4]) }
        // The keys read are made before the baseline, so that they are not counted.
        var state = seed &* 0x9E37_79B9_7F4A_7C15
        let keys = (0..<reads).map { _ -> String in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return key(Int((state >> 33) % UInt64(count)))
        }
        let warmUp = Array(keys.prefix(max(1, reads / 4)))
        try StoreFiles(folder).dropFromPageCache()
        let base = residentBytes()
        let start = DispatchTime.now().uptimeNanoseconds
        let read: (String) -> Data?
        let close: () throws -> Void
        if let tuning = sqliteTuning(parts[4]) {
            let store = try SQLiteRawStore(folder: folder, tuning: tuning)
            (read, close) = (store.get, {})
        } else {
            let cache = try DiskCache(directory: folder)
            (read, close) = ({ cache.data(forKey: $0) }, cache.close)
        }
        let reopen = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let opened = residentBytes()
        var hits = 0
        var coldLatencies = [UInt64](repeating: 0, count: warmUp.count)
        let coldStart = DispatchTime.now().uptimeNanoseconds
        var previous = coldStart
        for (index, key) in warmUp.enumerated() {
            if read(key) != nil { hits += 1 }
            let now = DispatchTime.now().uptimeNanoseconds
            coldLatencies[index] = now - previous
            previous = now
        }
        let coldSeconds = Double(previous - coldStart) / 1e9
        coldLatencies.sort()
        let coldP99 = Double(coldLatencies[min(coldLatencies.count - 1, coldLatencies.count * 99 / 100)]) / 1e9
        let readStart = DispatchTime.now().uptimeNanoseconds
        for key in keys where read(key) != nil { hits += 1 }
        let readSeconds = Double(DispatchTime.now().uptimeNanoseconds - readStart) / 1e9
        let afterReads = residentBytes()
        guard hits == warmUp.count + keys.count else {
            throw StashError(.io, "disk scale probe: \(hits) hits, expected \(warmUp.count + keys.count)")
        }
        let files = StoreFiles(folder)
        print("scale-probe \(reopen) \(readSeconds) \(opened.resident - base.resident) \(afterReads.resident - base.resident)"
            + " \(afterReads.anonymous - base.anonymous) \(coldSeconds) \(files.residentBytes()) \(files.diskBytes()) \(coldP99)")
        try close()
        return true
    }

    /// The `kill` probe: rewrites one entry with its own value, commits it, and dies by
    /// `SIGKILL` with the store open, as an app the system kills.
    private static func writeThenDie(_ folder: URL, impl: String) throws -> Never {
        if let tuning = sqliteTuning(impl) {
            let store = try SQLiteRawStore(folder: folder, tuning: tuning)
            try store.set(value(0), key(0))
            if tuning.isExpert { try store.execute("COMMIT") }
            withExtendedLifetime(store) { _ = raise(SIGKILL) }
        } else {
            let cache = try DiskCache(directory: folder)
            try cache.set(value(0), forKey: key(0))
            let flushed = DispatchSemaphore(value: 0)
            Task.detached {
                try? await cache.flush()
                flushed.signal()
            }
            flushed.wait()
            withExtendedLifetime(cache) { _ = raise(SIGKILL) }
        }
        fatalError("SIGKILL did not end the process")
    }

    /// The resident size of this process (`Rss`) and its anonymous part (`Anonymous`), in
    /// bytes, from `/proc/self/smaps_rollup`.
    private static func residentBytes() -> (resident: Double, anonymous: Double) {
        guard let text = try? String(contentsOfFile: "/proc/self/smaps_rollup", encoding: .utf8) else { return (0, 0) }
        var figures = (resident: 0.0, anonymous: 0.0)
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, let kilobytes = Double(fields[1]) else { continue }
            switch fields[0] {
            case "Rss:": figures.resident = kilobytes * 1024
            case "Anonymous:": figures.anonymous = kilobytes * 1024
            default: break
            }
        }
        return figures
    }
}
