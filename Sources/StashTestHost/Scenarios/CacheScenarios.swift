import Foundation
import Stash

/// Scenarios named "cache.…".
///
/// - `cache.write-loop DIR`: writes, replaces and removes small (inline) and large (file)
///   values in a disk cache without end, flushing every 50 writes and reporting
///   `flushed N` once writes 0…N are committed. The parent kills it with SIGKILL.
/// - `cache.hold-writer DIR`: opens DIR as the writer, stores `from-child`, flushes, reports
///   `ready` and waits to be killed.
let cacheScenarios: [String: Scenario] = [
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
]

private func childConfiguration() -> DiskCache.Configuration {
    var configuration = DiskCache.Configuration()
    configuration.inlineThreshold = 1024
    configuration.flushDelay = 0.002
    configuration.log = { _ in }
    return configuration
}

/// The keys and values of `cache.write-loop`: 64 keys, every third value large (a file).
/// Each value is one repeated byte, so a reader can tell a whole value from a torn one.
enum CacheScenarioValue {
    static func key(for index: Int) -> String { "item-\(index % 64).bin" }

    static func value(for index: Int) -> Data {
        Data(repeating: UInt8(truncatingIfNeeded: index), count: index % 3 == 0 ? 3000 + index % 500 : 10 + index % 200)
    }
}
