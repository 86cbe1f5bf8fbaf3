import Foundation
import Stash
import StashCore

/// `stash-bench disk` case `read-during-slow-sync`, Stash only: how long a read on one thread
/// waits while the cache flushes and compacts its value log on its queue, each of
/// compaction's syncs made to take 1 s (as a busy phone's flash can: a delay injected
/// through the I/O seam, ``FaultInjection``). A thread reads random keys of 20,000 100-byte
/// values while the caller rewrites them all six times over, so that the background queue
/// flushes and compacts; a repetition ends when the queue is done. The case reports the
/// reads' rate and their p50, p99 and p99.9 latency, and the notes how many syncs were
/// slowed. A read that waited for a sync would show it in the p99.9.
enum DiskSlowSyncCase {
    static let name = "read-during-slow-sync"
    static let syncDelay: useconds_t = 1_000_000
    static let rounds = 6

    static func run(_ context: BenchContext, scratch: URL) async throws {
        guard context.runs(name), context.runsImpl("stash") else { return }
        let folder = scratch.appendingPathComponent("slow-sync", isDirectory: true)
        var configuration = DiskCache.Configuration()
        configuration.sizeLimit = nil
        let cache = try DiskCache(directory: folder, configuration: configuration)
        defer { try? cache.close() }
        let keys = (0..<context.scaled(20_000)).map { "k\($0)" }
        func value(_ index: Int, _ round: Int) -> Data { Data(repeating: UInt8(truncatingIfNeeded: index &+ round), count: 100) }
        for (index, key) in keys.enumerated() { try cache.set(value(index, 0), forKey: key) }
        try await cache.flush()
        let slowed = LockedValue(0)
        let plan = FaultInjection.observe(folder: folder.path) { call in
            guard call.call == .fsync, call.path.hasSuffix(".log") else { return }
            slowed.withLock { $0 += 1 }
            usleep(syncDelay)
        }
        defer { plan.disarm() }
        let generation = Counter()
        let seed = UInt64.random(in: 0...UInt64.max)
        context.reporter.note("\(name): random read order from seed \(seed)")
        try await context.compareAsync(suite: DiskSuite.suite, case: name, [
            AsyncContender("stash", measured: {
                let round = generation.next()
                let reading = ReaderThread(cache: cache, keys: keys, seed: seed &+ UInt64(round))
                for step in 0..<rounds {
                    for (index, key) in keys.enumerated() { try cache.set(value(index, round * rounds + step), forKey: key) }
                }
                // Queued after the housekeeping of the flushes above, compaction included.
                try await cache.flush()
                return Measurement(load: await reading.stop())
            }),
        ], extra: ["entries": "\(keys.count)"])
        context.reporter.note("\(name): \(slowed.withLock { $0 }) syncs of the value log slowed to 1 s each")
    }
}

/// A thread reading random keys of a cache, each read timed, until told to stop.
private final class ReaderThread: @unchecked Sendable {  // `stopping` under its lock; the rest is the thread's until `done`
    private let stopping = LockedValue(false)
    private let done = DispatchSemaphore(value: 0)
    private var latencies: [UInt64] = []
    private var misses = 0
    private var seconds = 0.0

    init(cache: DiskCache, keys: [String], seed: UInt64) {
        Thread { [self] in
            var state = seed | 1
            latencies.reserveCapacity(1 << 22)
            let start = DispatchTime.now().uptimeNanoseconds
            var previous = start
            while !stopping.withLock({ $0 }) {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                if cache.data(forKey: keys[Int((state >> 33) % UInt64(keys.count))]) == nil { misses += 1 }
                let now = DispatchTime.now().uptimeNanoseconds
                latencies.append(now - previous)
                previous = now
            }
            seconds = Double(previous - start) / 1e9
            done.signal()
        }.start()
    }

    /// Stops the reads and answers them as a load generator's run: their count, misses as
    /// errors, and their latency.
    func stop() async -> LoadGenerator.Run {
        stopping.withLock { $0 = true }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                self.done.wait()
                continuation.resume()
            }
        }
        let sorted = latencies.sorted()
        func quantile(_ q: Double) -> Double {
            sorted.isEmpty ? 0 : Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * q))]) / 1e6
        }
        var run = LoadGenerator.Run(requests: sorted.count, errors: misses, p99Milliseconds: quantile(0.99))
        run.p50Milliseconds = quantile(0.5)
        run.p999Milliseconds = quantile(0.999)
        run.seconds = seconds
        return run
    }
}
