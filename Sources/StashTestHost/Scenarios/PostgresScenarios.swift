import Foundation
import PostgresNIO
import StashPostgres

/// Scenarios named "postgres.…", the second instance of the shared-cache tests.
///
/// - `postgres.increment URL SCHEMA COUNT`: on the `stash_cache` table of SCHEMA, increments
///   `counter` COUNT times and stores `from-PID-I` = `I` for each, then reads back what the
///   parent stored under `from-parent` and reports `done PID VALUE` (VALUE empty on a miss).
let postgresScenarios: [String: Scenario] = [
    "postgres.increment": { arguments in
        var configuration = try SharedCache.clientConfiguration(url: arguments[0])
        configuration.options.additionalStartupParameters = [("search_path", arguments[1])]
        let count = Int(arguments[2]) ?? 0
        let client = PostgresClient(configuration: configuration)
        var cacheConfiguration = SharedCache.Configuration()
        cacheConfiguration.failurePolicy = .strict
        cacheConfiguration.timeout = .seconds(20)
        let cache = SharedCache(client: client, configuration: cacheConfiguration)
        let pid = ProcessInfo.processInfo.processIdentifier
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            report("ready")
            for index in 0..<count {
                try await cache.increment("counter")
                try await cache.set(Data("\(index)".utf8), forKey: "from-\(pid)-\(index)")
            }
            let parent = try await cache.value(forKey: "from-parent").map { String(decoding: $0, as: UTF8.self) } ?? ""
            report("done \(pid) \(parent)")
            group.cancelAll()
        }
    },
]
