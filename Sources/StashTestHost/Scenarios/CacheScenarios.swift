import Foundation
import Stash

/// Scenarios named "cache.…".
///
/// - `cache.write-loop DIR`: writes, replaces and removes small (inline) and large (file)
///   values in a disk cache without end, flushing every 50 writes and reporting
///   `flushed N` once writes 0…N are committed. The parent kills it with SIGKILL.
/// - `cache.hold-writer DIR`: opens DIR as the writer, stores `from-child`, flushes, reports
///   `ready` and waits to be killed.
/// - `cache.suspend-and-wait DIR`: with a flush delay of an hour, stores `a`, `b` and `c`,
///   suspends the cache (which flushes them), stages the removal of `a`, reports `suspended`
///   and waits to be killed.
/// - `cache.out-of-descriptors DIR`: stores a value in a file, uses up every file
///   descriptor the process may have (a low `RLIMIT_NOFILE`), reads the value then
///   (`openFile`, `data`, reporting `exhausted open=… data=…`), frees the descriptors and
///   reports whether the entry survived, before and after a flush and reopen
///   (`after open=… data=…`, `reopened open=… data=…`).
/// - `cache.compact DIR`: writes 300 small values nine times over (`CacheScenarioValue.round`),
///   flushing and reporting `flushed R` after round R, so that most of the log is dead (and
///   a megabyte more written since the last check: compaction is due); then
///   reopens the cache, waits until its housekeeping has compacted the log (at most 10 s) and
///   reports `done`.
let cacheScenarios: [String: Scenario] = [
    "cache.compact": { arguments in
        let directory = URL(fileURLWithPath: arguments[0])
        let cache = try DiskCache(directory: directory, configuration: childConfiguration())
        for round in 0..<9 {
            for key in 0..<300 { try cache.set(CacheScenarioValue.round(round, key: key), forKey: "k\(key)") }
            try await cache.flush()
            report("flushed \(round)")
        }
        try cache.close()
        // Opening a writer starts its housekeeping, which compacts the log.
        let reopened = try DiskCache(directory: directory, configuration: childConfiguration())
        let segment = directory.appendingPathComponent("values/1.log")
        let deadline = Date().addingTimeInterval(10)
        while FileManager.default.fileExists(atPath: segment.path), Date() < deadline { usleep(5_000) }
        try reopened.close()
        report(FileManager.default.fileExists(atPath: segment.path) ? "not compacted" : "done")
    },
    "cache.write-loop": { arguments in
        let cache = try DiskCache(directory: URL(fileURLWithPath: arguments[0]), configuration: childConfiguration())
        report("ready")
        var index = 0
        while true {
            try cache.set(CacheScenarioValue.value(for: index), forKey: CacheScenarioValue.key(for: index))
            if index % 7 == 3 { cache.removeValue(forKey: CacheScenarioValue.key(for: index / 2)) }
            if index % 50 == 49 {
                try await cache.flush()
                report("flushed \(index)")
            }
            index += 1
        }
    },
    "cache.hold-writer": { arguments in
        let cache = try DiskCache(directory: URL(fileURLWithPath: arguments[0]), configuration: childConfiguration())
        try cache.set(Data("from-child".utf8), forKey: "from-child")
        try await cache.flush()
        report("ready")
        while true { try await Task.sleep(for: .seconds(3600)) }
    },
    "cache.suspend-and-wait": { arguments in
        var configuration = childConfiguration()
        configuration.flushDelay = 3600
        let cache = try DiskCache(directory: URL(fileURLWithPath: arguments[0]), configuration: configuration)
        for key in ["a", "b", "c"] { try cache.set(Data(key.utf8), forKey: key) }
        try await cache.suspend()
        cache.removeValue(forKey: "a")
        report("suspended")
        while true { try await Task.sleep(for: .seconds(3600)) }
    },
    "cache.out-of-descriptors": { arguments in
        let directory = URL(fileURLWithPath: arguments[0])
        var configuration = childConfiguration()
        configuration.inlineThreshold = 0
        // No background flush while descriptors are used up: the reads alone are tested.
        configuration.flushDelay = 3600
        let value = Data(repeating: 7, count: 5000)
        var cache: DiskCache? = try DiskCache(directory: directory, configuration: configuration)
        try cache?.set(value, forKey: "movie")
        try await cache?.flush()
        func describe(_ cache: DiskCache?) -> String {
            let opened = cache?.openFile(forKey: "movie")
            let open = opened.map { (try? $0.readToEnd()) == value ? "whole" : "wrong" } ?? "nil"
            let data = cache?.data(forKey: "movie").map { $0 == value ? "whole" : "wrong" } ?? "nil"
            return "open=\(open) data=\(data)"
        }
        let held = OpenFileLimit.exhaust()
        let exhausted = describe(cache)
        OpenFileLimit.release(held)
        report("exhausted \(exhausted) held=\(held.count)")
        report("after \(describe(cache))")
        try await cache?.flush()
        try cache?.close()
        cache = nil
        cache = try DiskCache(directory: directory, configuration: configuration)
        report("reopened \(describe(cache))")
    },
]

/// Uses up the file descriptors this process may open, so that the next `open` fails
/// with `EMFILE` as it does in a busy server.
private enum OpenFileLimit {
    /// Lowers the soft limit to a few more than are open now and opens descriptors until
    /// `open` fails; returns them.
    static func exhaust() -> [Int32] {
        var limit = rlimit()
        getrlimit(resourceLimit, &limit)
        limit.rlim_cur = min(limit.rlim_cur, 256)
        setrlimit(resourceLimit, &limit)
        var held: [Int32] = []
        held.reserveCapacity(256)
        while true {
            let fd = open("/dev/null", O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { break }
            held.append(fd)
        }
        return held
    }

    static func release(_ held: [Int32]) {
        for fd in held { close(fd) }
    }

    #if canImport(Glibc)
    static let resourceLimit = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    static let resourceLimit = RLIMIT_NOFILE
    #endif
}

private func childConfiguration() -> DiskCache.Configuration {
    var configuration = DiskCache.Configuration()
    configuration.inlineThreshold = 1024
    configuration.flushDelay = 0.002
    return configuration
}

/// The keys and values of `cache.write-loop`: 64 keys, every third value large (a file).
/// Each value is one repeated byte, so a reader can tell a whole value from a torn one.
enum CacheScenarioValue {
    /// The value of key `key` in round `round` of `cache.compact`: 900 bytes, inline.
    static func round(_ round: Int, key: Int) -> Data {
        Data("round \(round) key \(key) ".utf8) + Data(repeating: UInt8(truncatingIfNeeded: round &* 41 &+ key), count: 880)
    }

    static func key(for index: Int) -> String { "item-\(index % 64).bin" }

    static func value(for index: Int) -> Data {
        Data(repeating: UInt8(truncatingIfNeeded: index), count: index % 3 == 0 ? 3000 + index % 500 : 10 + index % 200)
    }
}
